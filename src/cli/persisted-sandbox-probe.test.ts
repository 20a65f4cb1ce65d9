import { readFileSync, readlinkSync } from "node:fs";
import { chmod, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeSandboxSoon, type SandboxProbe } from "../sandbox/probe-sandbox.js";
import { machineFacts, persistedSandboxProbes } from "./persisted-sandbox-probe.js";

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

const available = (path = bwrapPath): SandboxProbe => ({
  status: "available",
  bwrapPath: path,
  version: "",
});
const forbidden = (): SandboxProbe => ({
  status: "unavailable",
  bwrapPath,
  kind: "forbidden",
  reason: "bubblewrap is installed but could not create the sandbox's namespaces here",
});
const HOUR = 60 * 60 * 1000;
const folder = () => join(dir, "config", "docket", "cache", "sandbox-probe");

describe("persistedSandboxProbes", () => {
  it("keeps an available answer in docket's cache folder and gives it back for the same binary", () => {
    const memory = persistedSandboxProbes({ env });
    const slot = memory?.open(bwrapPath);
    expect(slot?.kept).toBeUndefined();
    slot?.keep(available());
    expect(persistedSandboxProbes({ env })?.open(bwrapPath).kept).toEqual(available());
  });

  it("never keeps an unavailable answer, and one forgets what the key held", async () => {
    const memory = persistedSandboxProbes({ env });
    memory?.open(bwrapPath).keep(forbidden());
    expect(memory?.open(bwrapPath).kept).toBeUndefined();
    memory?.open(bwrapPath).keep(available());
    expect(await readdir(folder())).toHaveLength(1);
    // What `docket doctor` does when it finds the sandbox gone under the same key.
    memory?.open(bwrapPath).keep(forbidden());
    expect(memory?.open(bwrapPath).kept).toBeUndefined();
    expect(await readdir(folder())).toHaveLength(0);
  });

  it("keeps nothing when DOCKET_CACHE=off", () => {
    expect(persistedSandboxProbes({ env: { ...env, DOCKET_CACHE: "off" } })).toBeUndefined();
  });

  it("believes an answer for an hour, and not one dated in the future", () => {
    let now = 1_000_000_000_000;
    const memory = persistedSandboxProbes({ env, now: () => now });
    memory?.open(bwrapPath).keep(available());
    now += HOUR - 1;
    expect(memory?.open(bwrapPath).kept).toEqual(available());
    now += 2;
    expect(memory?.open(bwrapPath).kept).toBeUndefined();
    now -= 2 * HOUR;
    expect(memory?.open(bwrapPath).kept).toBeUndefined();
  });

  it("asks again when any fact of the machine or the process differs", () => {
    const facts: unknown[] = ["uid", "boot", "ns", "seccomp", "label", "switch"];
    const keptWith = (machine: unknown[]) =>
      persistedSandboxProbes({ env, machine: () => machine })?.open(bwrapPath).kept;
    persistedSandboxProbes({ env, machine: () => facts })
      ?.open(bwrapPath)
      .keep(available());
    expect(keptWith(facts)).toEqual(available());
    for (let i = 0; i < facts.length; i += 1) {
      const changed = facts.map((fact, j) => (i === j ? `${String(fact)}'` : fact));
      expect(keptWith(changed), `fact ${i}`).toBeUndefined();
    }
    // And a different PATH, with the same binary given by its path.
    expect(
      persistedSandboxProbes({ env: { ...env, PATH: "/bin" }, machine: () => facts })?.open(
        bwrapPath,
      ).kept,
    ).toBeUndefined();
  });

  it("reads the process's own restrictions, namespaces, label and boot into those facts", () => {
    const facts = JSON.stringify(machineFacts());
    const read = (file: string) => {
      try {
        return readFileSync(file, "utf8").trim();
      } catch {
        return undefined;
      }
    };
    for (const part of [
      read("/proc/sys/kernel/random/boot_id"),
      readlinkSync("/proc/self/ns/user"),
      readlinkSync("/proc/self/ns/mnt"),
      read("/proc/self/attr/current"),
      ...(read("/proc/self/status") ?? "")
        .split("\n")
        .filter((line) => /^(Seccomp|NoNewPrivs|CapEff|CapBnd):/.test(line)),
    ]) {
      if (part !== undefined) expect(facts).toContain(JSON.stringify(part).slice(1, -1));
    }
  });

  it("asks again when the binary is another file, or the name finds another one", async () => {
    const memory = persistedSandboxProbes({ env });
    memory?.open(bwrapPath).keep(available());
    await writeFile(bwrapPath, "#!/bin/sh\necho 'bwrap: No permissions' >&2\nexit 1\n");
    expect(memory?.open(bwrapPath).kept).toBeUndefined();
    // By name: the first executable `bwrap` on PATH is part of the key.
    const other = await mkdtemp(join(tmpdir(), "docket-kept-probe-path-"));
    try {
      await writeFile(join(other, "bwrap"), "#!/bin/sh\nexit 0\n");
      const byName = { ...env, PATH: `${dir}:${process.env.PATH}` };
      const named = available("bwrap");
      persistedSandboxProbes({ env: byName })?.open("bwrap").keep(named);
      expect(persistedSandboxProbes({ env: byName })?.open("bwrap").kept).toEqual(named);
      const shadowed = { ...env, PATH: `${other}:${dir}:${process.env.PATH}` };
      // Not executable: execvp passes it by, and so does the key.
      await chmod(join(other, "bwrap"), 0o644);
      expect(persistedSandboxProbes({ env: shadowed })?.open("bwrap").kept).toBeUndefined();
      persistedSandboxProbes({ env: shadowed })?.open("bwrap").keep(named);
      await chmod(join(other, "bwrap"), 0o755);
      expect(persistedSandboxProbes({ env: shadowed })?.open("bwrap").kept).toBeUndefined();
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it("keeps one entry a key: two binaries do not evict each other", async () => {
    const second = join(dir, "bwrap-2");
    await writeFile(second, "#!/bin/sh\nexit 0\n");
    await chmod(second, 0o755);
    const memory = persistedSandboxProbes({ env });
    memory?.open(bwrapPath).keep(available());
    memory?.open(second).keep(available(second));
    expect(memory?.open(bwrapPath).kept).toEqual(available());
    expect(memory?.open(second).kept).toEqual(available(second));
  });

  it("files a fresh answer under the key read before the probe started", async () => {
    // A bubblewrap that takes a moment; a working one is moved into its place meanwhile.
    const slow = join(dir, "slow");
    await writeFile(slow, "#!/bin/sh\nsleep 0.3\nexit 0\n");
    await chmod(slow, 0o755);
    const probing = probeSandboxSoon(slow, {
      version: false,
      memory: persistedSandboxProbes({ env }),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const replacement = join(dir, "replacement");
    await writeFile(replacement, "#!/bin/sh\necho 'bwrap: replaced' >&2\nexit 1\n");
    await chmod(replacement, 0o755);
    await rename(replacement, slow);
    expect((await probing).status).toBe("available");
    expect(persistedSandboxProbes({ env })?.open(slow).kept).toBeUndefined();
  });

  it("gives no answer from a damaged entry or for another binary's name", async () => {
    const memory = persistedSandboxProbes({ env });
    memory?.open(bwrapPath).keep(available());
    expect(memory?.open(join(dir, "bwrap-other")).kept).toBeUndefined();
    const [entry] = await readdir(folder());
    const file = join(folder(), entry ?? "");
    const bytes = await readFile(file);
    bytes[bytes.length - 3] = (bytes[bytes.length - 3] ?? 0) ^ 1;
    await writeFile(file, bytes);
    expect(memory?.open(bwrapPath).kept).toBeUndefined();
  });
});
