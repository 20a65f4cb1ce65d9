import * as crypto from "node:crypto";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { signAttestation } from "../store/audit-attestation.js";
import { GENESIS_HASH } from "../store/audit-chain.js";
import { openDigestLog, parseDigestLines } from "./digest-log.js";

const dir = mkdtempSync(join(tmpdir(), "docket-digest-log-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const { privateKey } = crypto.generateKeyPairSync("ed25519");
const signer = {
  keyId: "k",
  sign: (body: string) => crypto.sign(null, Buffer.from(body), privateKey).toString("base64"),
  deliver: () => undefined,
};
const attestation = (n: number) =>
  signAttestation(
    {
      storeId: "s",
      sessionId: "ses_1",
      n,
      seq: n * 4,
      headHash: "a".repeat(64),
      messagesSeq: 0,
      messagesHash: GENESIS_HASH,
      at: 1_700_000_000_000 + n,
      prev: GENESIS_HASH,
      keyId: "k",
    },
    signer,
  );

describe("a digest log file", () => {
  it("read while a delivery is being written: the unfinished line is not yet a line", async () => {
    const file = join(dir, "partial.jsonl");
    const log = await openDigestLog(file);
    try {
      await log.deliver([attestation(1)]);
      const second = attestation(2);
      const text = `${JSON.stringify({ body: second.body, signature: second.signature })}\n`;
      const cut = Math.floor(text.length / 2);
      appendFileSync(file, text.slice(0, cut));
      const during = await log.read("s");
      expect(during.unreadable).toEqual([]);
      expect(during.attestations.map((c) => c.n)).toEqual([1]);
      appendFileSync(file, text.slice(cut));
      const after = await log.read("s");
      expect(after.unreadable).toEqual([]);
      expect(after.attestations.map((c) => c.n)).toEqual([1, 2]);
      // A broken line with lines after it is not one being written: it is reported.
      appendFileSync(file, "{not json\n");
      await log.deliver([attestation(3)]);
      const broken = await log.read("s");
      expect(broken.unreadable).toEqual([{ line: 3, reason: "not JSON" }]);
      expect(broken.attestations.map((c) => c.n)).toEqual([1, 2, 3]);
    } finally {
      await log.close();
    }
  });

  // A SIGKILL can cut one write short between two pages: the start of a line, no newline. The
  // next delivery (recovery sends the lost copy again) must be readable, and the cut start is
  // not tampering (harness-batch-crash saw `not JSON` and the copy lost, glued to the cut).
  it("a delivery cut short by a crash: the next starts its own line, and the cut start is not reported", async () => {
    const file = join(dir, "cut.jsonl");
    const log = await openDigestLog(file);
    try {
      await log.deliver([attestation(1)]);
      const lost = digestLine(attestation(2));
      appendFileSync(file, lost.slice(0, 100));
      await log.deliver([attestation(2), attestation(3)]);
      expect(readFileSync(file, "utf8").split("\n")[1]).toBe(lost.slice(0, 100));
      const read = await log.read("s");
      expect(read.unreadable).toEqual([]);
      expect(read.attestations.map((c) => c.n)).toEqual([1, 2, 3]);
      // What an older docket wrote: the next line glued to the cut one.
      const glued = [digestLine(attestation(1)), lost.slice(0, 80) + digestLine(attestation(2))];
      const parsed = parseDigestLines(glued.join("").split("\n").slice(0, -1), "s");
      expect(parsed.unreadable).toEqual([]);
      expect(parsed.attestations.map((c) => c.n)).toEqual([1, 2]);
      // A broken line that is not the start of a digest line is still reported.
      expect(parseDigestLines(['{"signature":"x"', "garbage"], "s").unreadable).toEqual([
        { line: 1, reason: "not JSON" },
        { line: 2, reason: "not JSON" },
      ]);
    } finally {
      await log.close();
    }
  });
});

function digestLine(a: ReturnType<typeof attestation>): string {
  return `${JSON.stringify({ body: a.body, signature: a.signature })}\n`;
}
