import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useBuiltBin } from "../support/built-bin.js";

// The installed, bundled CLI keeps the sandbox probe's answer between processes (ADR 0088): a
// cold command starts bubblewrap only when nothing is kept for this binary on this machine.
const { bin, exec } = useBuiltBin();

const working = (log: string) => `#!/bin/sh\necho probe >> '${log}'\n`;
const forbidden = (log: string) =>
  `#!/bin/sh\necho probe >> '${log}'\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n`;

describe("the built bin's kept sandbox probe", () => {
  it("probes once across cold commands, again for a changed binary or in doctor, always with DOCKET_CACHE=off", async () => {
    const dir = await mkdtemp(join(tmpdir(), "docket-kept-probe-bin-"));
    try {
      const log = join(dir, "probes");
      const bwrap = join(dir, "bwrap");
      await writeFile(bwrap, working(log));
      await chmod(bwrap, 0o755);
      await writeFile(join(dir, "docket.yaml"), `sandbox:\n  bwrap: ${bwrap}\n`);
      const docket = (args: readonly string[], env: NodeJS.ProcessEnv = {}) =>
        exec(process.execPath, [bin.main, ...args], {
          cwd: dir,
          env: {
            ...process.env,
            HOME: dir,
            XDG_CONFIG_HOME: join(dir, "config"),
            DOCKET_CONFIG: "",
            DOCKET_STORE: "",
            ...env,
          },
        }).then(
          ({ stdout }) => ({ code: 0, stdout }),
          (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
        );
      const check = (env?: NodeJS.ProcessEnv) =>
        docket(["policy", "check", "run_command", '{"command":"ls"}'], env);
      const probes = async () =>
        (await readFile(log, "utf8").catch(() => "")).split("\n").length - 1;

      const first = await check();
      expect(first).toMatchObject({ code: 0, stdout: expect.stringMatching(/^decision: allow/) });
      expect(await probes()).toBe(1);
      for (let i = 0; i < 2; i += 1) expect(await check()).toEqual(first);
      expect(await probes()).toBe(1);

      // Nothing kept when the cache is off: every process probes.
      expect(await check({ DOCKET_CACHE: "off" })).toEqual(first);
      expect(await probes()).toBe(2);

      // Another binary at the same path is probed afresh, and its answer is the one used.
      await writeFile(bwrap, forbidden(log));
      const after = await check();
      expect(await probes()).toBe(3);
      expect(after.code).toBe(3);
      expect(after.stdout).toMatch(/^decision: ask/);
      expect(after.stdout).toMatch(/could not create the sandbox's namespaces/);
      // Not kept: each process probes while bubblewrap cannot make the sandbox.
      expect(await check()).toEqual(after);
      expect(await probes()).toBe(4);

      // A probe that fails once (a namespace limit reached for a moment, a timeout under load) is
      // not kept: the next process probes again, and is sandboxed.
      await writeFile(
        bwrap,
        `#!/bin/sh\necho probe >> '${log}'\nif [ ! -e '${log}.once' ]; then touch '${log}.once'; echo 'bwrap: No space left on device' >&2; exit 1; fi\n`,
      );
      expect((await check()).stdout).toMatch(/^decision: ask/);
      expect(await check()).toEqual(first);
      expect(await check()).toEqual(first);
      expect(await probes()).toBe(6);

      // `docket doctor` always probes, and what it saw is what the next cold command goes by.
      await writeFile(bwrap, working(log));
      await docket(["doctor"]);
      const byDoctor = await probes();
      expect(byDoctor).toBeGreaterThan(6);
      expect(await check()).toEqual(first);
      expect(await probes()).toBe(byDoctor);

      // No tool may write what is kept, or its folder.
      const folder = join(dir, "config", "docket", "cache", "sandbox-probe");
      const [entry] = await readdir(folder);
      expect(entry).toMatch(/^sandbox-probe-[0-9a-f]{16}-[0-9a-f]{32}\.bin$/);
      for (const [tool, args] of [
        ["write_file", { path: join(folder, entry ?? ""), content: "" }],
        ["run_command", { command: `rm -rf ${folder}` }],
        ["run_command", { command: `cp /tmp/x ${join(folder, "sandbox-probe-0-0.bin")}` }],
      ] as const) {
        const refused = await docket(["policy", "check", tool, JSON.stringify(args)]);
        expect(refused.stdout, JSON.stringify(args)).toContain("docket:self-protection");
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
