import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Issue 41: a clone its owner keeps private (mkdtemp's 0700, /root) broke the one test that ran
// a worker as nobody with a loader from the checkout; CI clones into a readable folder and never
// saw it. This file keeps the family in sight: any test that starts a process as another user
// goes through test/support/foreign-user-worker.ts, and those tests pass from a private clone.
const repo = fileURLToPath(new URL("../../", import.meta.url));
const helper = "test/support/foreign-user-worker.ts";
// Runs PostgreSQL as its own user, from its binaries and a data folder it owns: nothing of the
// checkout is read by that user.
const allowed = new Set([helper, "test/support/own-postgres.ts"]);

function tracked(): string[] {
  const list = spawnSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: repo,
    encoding: "utf8",
  });
  if (list.status !== 0) throw new Error(`git ls-files failed: ${list.stderr}`);
  return list.stdout.split("\n").filter((file) => {
    if (file === "") return false;
    try {
      return statSync(join(repo, file)).isFile();
    } catch {
      return false; // deleted in the work tree, not yet in the index
    }
  });
}

const sources = tracked().filter((file) => /^(src|test)\/.*\.ts$/.test(file));
const read = (file: string) => readFileSync(join(repo, file), "utf8");
const switchesUser = (text: string) =>
  text.includes("node:child_process") &&
  /\b[ug]id\s*[:,}]|["'](su|runuser|setpriv|sudo)["']/.test(text);
const usesWorker = (text: string) => /from "[^"]*support\/foreign-user-worker\.js"/.test(text);

describe("tests that run a process as another user", () => {
  it("start it only through the world-readable worker (or own its files, like PostgreSQL's)", () => {
    const strays = sources.filter((file) => !allowed.has(file) && switchesUser(read(file)));
    expect(strays, `use ${helper}: another user may not read the checkout`).toEqual([]);
  });

  it.skipIf(process.getuid?.() !== 0)(
    "pass as root from a clone in a 0700 folder",
    (context) => {
      const family = sources.filter((file) => file.endsWith(".test.ts") && usesWorker(read(file)));
      expect(family.length, "the privilege-dropping tests").toBeGreaterThan(0);
      const closed = mkdtempSync(join(tmpdir(), "docket-private-clone-"));
      expect(statSync(closed).mode & 0o777).toBe(0o700);
      try {
        const clone = join(closed, "docket");
        for (const file of tracked()) {
          mkdirSync(dirname(join(clone, file)), { recursive: true });
          cpSync(join(repo, file), join(clone, file));
        }
        symlinkSync(join(repo, "node_modules"), join(clone, "node_modules"));
        const run = spawnSync(
          process.execPath,
          [join(clone, "node_modules/vitest/vitest.mjs"), "run", ...family],
          {
            cwd: clone,
            encoding: "utf8",
            timeout: 240_000,
            env: { ...process.env, NO_COLOR: "1" },
          },
        );
        const output = `${run.stdout}${run.stderr}`;
        if (/\bskipped\b/.test(output) && !/\bpassed\b/.test(output))
          context.skip("the worker cannot run as another user on this machine");
        expect(output).toMatch(new RegExp(`Test Files\\s+${family.length} passed`));
        expect(output).not.toMatch(/\bfailed\b/);
        expect(run.status).toBe(0);
      } finally {
        rmSync(closed, { recursive: true, force: true });
      }
    },
    300_000,
  );
});
