import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readExport } from "../../src/audit/export-trail.js";
import { runDocketAuditor } from "./support/run-docket-auditor.js";

// ADR 0065: an export written before the rename names its signed lines "checkpoint". The bytes
// each signature covers did not change, so such a file must still verify, line for line.
const fixture = fileURLToPath(new URL("../fixtures/pre-attestation-export/", import.meta.url));

/** `docket audit verify --file` as an auditor runs it, with the key and log it was signed with. */
function verifyFile(trail: string, ...extra: string[]) {
  const home = mkdtempSync(join(tmpdir(), "docket-pre-attestation-"));
  return runDocketAuditor(
    [
      "audit",
      "verify",
      "--file",
      trail,
      "--public-key",
      join(fixture, "audit-key.pub.pem"),
      "--digests",
      join(fixture, "audit-digests.jsonl"),
      ...extra,
    ],
    home,
  );
}

/** A copy of the old export, so that a test may edit it. */
function copyOfExport(): string {
  const file = join(mkdtempSync(join(tmpdir(), "docket-pre-attestation-")), "trail.jsonl");
  copyFileSync(join(fixture, "trail.jsonl"), file);
  return file;
}

describe("an audit export written before attestations were named so", () => {
  it("holds its signed lines under the old kind", () => {
    const text = readFileSync(join(fixture, "trail.jsonl"), "utf8");
    expect(text).toContain('"kind":"checkpoint"');
    expect(text).not.toContain('"kind":"attestation"');
    const { source } = readExport(text, "trail.jsonl");
    expect(source.attestations.map((a) => a.n)).toEqual([1, 2, 3]);
  });

  it("verifies with today's docket, and names the count under both keys in --json", () => {
    const text = verifyFile(join(fixture, "trail.jsonl"));
    expect(text.stdout, text.stderr).toBe(
      "ok: 8 events in 1 chain verified, with 3 signed attestations.\n",
    );
    expect(text.status).toBe(0);
    const json = verifyFile(join(fixture, "trail.jsonl"), "--json");
    expect(json.status, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: true,
      verdict: "verified",
      events: 8,
      attestations: 3,
      checkpoints: 3,
      problems: [],
    });
  });

  it("is still checked, not skipped: an old-kind line whose signed text was edited is tampering", () => {
    const file = copyOfExport();
    const lines = readFileSync(file, "utf8").split("\n");
    const at = lines.findIndex((line) => line.includes('"kind":"checkpoint"'));
    lines[at] = (lines[at] as string).replace('\\"n\\":1', '\\"n\\":7');
    writeFileSync(file, lines.join("\n"));
    const result = verifyFile(file, "--json");
    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout) as { problems: { kind: string; message: string }[] };
    expect(report.problems.map((p) => p.kind)).toContain("bad_signature");
    expect(report.problems.find((p) => p.kind === "bad_signature")?.message).toMatch(
      /^attestation 7 \(event 0\) is not signed by this key/,
    );
  });
});
