import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./load-config.js";
import { readRuntimeConfig } from "./runtime-config.js";

async function configFrom(text: string) {
  const dir = await mkdtemp(join(tmpdir(), "docket-config-"));
  await writeFile(join(dir, "docket.yaml"), text);
  return loadConfig("docket.yaml", { cwd: dir });
}

describe("the audit: section", () => {
  it("reads the key file and the digest log", async () => {
    const runtime = readRuntimeConfig(
      await configFrom(
        "audit:\n  key_file: ~/keys/audit.pem\n  digests: postgres://audit@vault/digests\n",
      ),
    );
    expect(runtime.audit).toEqual({
      keyFile: "~/keys/audit.pem",
      digests: "postgres://audit@vault/digests",
    });
    expect(readRuntimeConfig(undefined).audit).toEqual({});
  });

  it("stops on an unknown or empty key with the file and line", async () => {
    const config = await configFrom("principal: agent\naudit:\n  key: x\n");
    expect(() => readRuntimeConfig(config)).toThrow(
      /docket\.yaml:2: audit: Unrecognized key.*"key"/,
    );
    const empty = await configFrom("audit:\n  digests: ''\n");
    expect(() => readRuntimeConfig(empty)).toThrow(/docket\.yaml:2: audit\.digests: /);
  });
});
