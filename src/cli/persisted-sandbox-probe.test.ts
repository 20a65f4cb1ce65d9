import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SandboxProbe } from "../sandbox/probe-sandbox.js";
import { persistedSandboxProbes } from "./persisted-sandbox-probe.js";

let dir: string;
let env: NodeJS.ProcessEnv;
let bwrapPath: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-kept-probe-"));
  env = { HOME: dir, XDG_CONFIG_HOME: join(dir, "config"), PATH: process.env.PATH };
  bwrapPath = join(dir, "bwrap");
  await writeFile(bwrapPath, "#!/bin/sh\nexit 0\n");
  await chmod(bwrapPath, 0o755);
});

afterEach(() => rm(dir, { recursive: true, force: true }));

const available = (): SandboxProbe => ({ status: "available", bwrapPath, version: "" });
const HOUR = 60 * 60 * 1000;

describe("persistedSandboxProbes", () => {
  it("keeps an answer in docket's cache folder and gives it back for the same binary", () => {
    const memory = persistedSandboxProbes({ env });
    expect(memory?.recall(bwrapPath)).toBeUndefined();
    memory?.keep(bwrapPath, available());
    expect(persistedSandboxProbes({ env })?.recall(bwrapPath)).toEqual(available());
    const forbidden: SandboxProbe = {
      status: "unavailable",
      bwrapPath,
      kind: "forbidden",
      reason: "bubblewrap is installed but could not create the sandbox's namespaces here",
    };
    memory?.keep(bwrapPath, forbidden);
    expect(memory?.recall(bwrapPath)).toEqual(forbidden);
  });

  it("keeps nothing when DOCKET_CACHE=off", () => {
    expect(persistedSandboxProbes({ env: { ...env, DOCKET_CACHE: "off" } })).toBeUndefined();
  });

  it("believes an answer for an hour, and not one dated in the future", () => {
    let now = 1_000_000_000_000;
    const memory = persistedSandboxProbes({ env, now: () => now });
    memory?.keep(bwrapPath, available());
    now += HOUR - 1;
    expect(memory?.recall(bwrapPath)).toEqual(available());
    now += 2;
    expect(memory?.recall(bwrapPath)).toBeUndefined();
    now -= 2 * HOUR;
    expect(memory?.recall(bwrapPath)).toBeUndefined();
  });

  it("asks again when the binary is another file, or the name finds another one", async () => {
    const memory = persistedSandboxProbes({ env });
    memory?.keep(bwrapPath, available());
    await writeFile(bwrapPath, "#!/bin/sh\necho 'bwrap: No permissions' >&2\nexit 1\n");
    expect(memory?.recall(bwrapPath)).toBeUndefined();
    // By name: the first `bwrap` on PATH is part of the key.
    const other = await mkdtemp(join(tmpdir(), "docket-kept-probe-path-"));
    try {
      await writeFile(join(other, "bwrap"), "#!/bin/sh\nexit 0\n");
      await chmod(join(other, "bwrap"), 0o755);
      const byName = { ...env, PATH: `${dir}:${process.env.PATH}` };
      const named: SandboxProbe = { status: "available", bwrapPath: "bwrap", version: "" };
      persistedSandboxProbes({ env: byName })?.keep("bwrap", named);
      expect(persistedSandboxProbes({ env: byName })?.recall("bwrap")).toEqual(named);
      const shadowed = { ...env, PATH: `${other}:${dir}:${process.env.PATH}` };
      expect(persistedSandboxProbes({ env: shadowed })?.recall("bwrap")).toBeUndefined();
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it("gives no answer from a damaged entry or for another binary's name", async () => {
    const memory = persistedSandboxProbes({ env });
    memory?.keep(bwrapPath, available());
    expect(memory?.recall(join(dir, ".", "bwrap-other"))).toBeUndefined();
    const folder = join(dir, "config", "docket", "cache", "sandbox-probe");
    const [entry] = await readdir(folder);
    const file = join(folder, entry ?? "");
    const bytes = await readFile(file);
    bytes[bytes.length - 3] = (bytes[bytes.length - 3] ?? 0) ^ 1;
    await writeFile(file, bytes);
    expect(memory?.recall(bwrapPath)).toBeUndefined();
  });
});
