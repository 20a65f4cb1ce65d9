import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PackedProject, packedDocket, runPacked } from "../support/packed-docket.js";

// RFC 8785 as the package ships it (ADR 0062): the library's canonicalJson on the RFC's vectors,
// and the installed CLI verifying a signed store written before the change.
const exec = promisify(execFile);
const fixtures = fileURLToPath(new URL("../fixtures/", import.meta.url));

let lean: PackedProject;
let work: string;
beforeAll(async () => {
  lean = await packedDocket("lean");
  work = await mkdtemp(join(lean.dir, "jcs-"));
}, 900_000);
afterAll(() => (work ? rm(work, { recursive: true, force: true }) : undefined));

describe("the installed docket's canonical JSON", () => {
  it('writes every RFC 8785 vector byte for byte through `import { canonicalJson } from "docket"`', async () => {
    const vectors = join(fixtures, "jcs", "rfc8785-vectors.json");
    const script = join(work, "vectors.mjs");
    await writeFile(
      script,
      `import { readFileSync } from "node:fs";
import { canonicalJson } from "docket";
const { files } = JSON.parse(readFileSync(process.argv[2], "utf8"));
for (const { name, input } of files) console.log(name + " " + canonicalJson(JSON.parse(input)));
`,
    );
    const { stdout } = await exec(process.execPath, [script, vectors], { cwd: lean.dir });
    const { files } = JSON.parse(await readFile(vectors, "utf8")) as {
      files: { name: string; output: string }[];
    };
    expect(stdout.trimEnd().split("\n")).toEqual(files.map((f) => `${f.name} ${f.output}`));
  });

  it("`docket audit verify` keeps a store hashed before RFC 8785 verified", async () => {
    const legacy = join(fixtures, "legacy-canonical-store");
    await copyFile(join(legacy, "legacy.db"), join(work, "legacy.db"));
    await copyFile(join(legacy, "audit-digests.jsonl"), join(work, "audit-digests.jsonl"));
    const args = ["audit", "verify", "--store", `sqlite:${join(work, "legacy.db")}`];
    const { code, stdout, stderr } = await runPacked(
      lean,
      [
        ...args,
        "--public-key",
        join(legacy, "audit-key.pub.pem"),
        "--digests",
        join(work, "audit-digests.jsonl"),
      ],
      { cwd: work },
    );
    expect(stdout, stderr).toMatch(/^ok: 12 events in 1 chain verified, with 2 signed/);
    expect(code).toBe(0);
  });
});
