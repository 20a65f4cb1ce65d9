import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INITIAL_CONFIG } from "../../src/cli/commands/init-command.js";
import type { PolicyVerdict } from "../../src/policy/policy.js";
import type { DocketPolicyEngine } from "../../src/policy/policy-engine.js";
import { type InitEngine, initEngine } from "./support/init-engine.js";
import { call } from "./support/policy-request.js";

// The policy `docket init` writes, as the attack of issue 13 tried it: every route to a secret
// or to docket's own state, through the file tools and through the shell.

let setup: InitEngine;
let ws: string;
let engine: DocketPolicyEngine;

beforeAll(async () => {
  setup = await initEngine(
    () => INITIAL_CONFIG,
    async (dir) => {
      await mkdir(join(dir, "app"));
      await writeFile(join(dir, "app", ".env.local"), "SECRET=1\n");
    },
  );
  ({ ws, engine } = setup);
});

afterAll(() => setup.dispose());

const decide = async (name: string, args: Record<string, unknown>) =>
  (await engine.decide(call(name, args))) as PolicyVerdict;

describe("docket init's policy", () => {
  it("denies secrets to the shell: cat, grep, head, source, redirects, nested shells, $HOME", async () => {
    for (const command of [
      "cat .env",
      "grep SECRET .env",
      "grep -n KEY app/.env.local",
      "head -5 .env",
      "source .env",
      ". ./.env",
      "cat < .env",
      "while read line; do echo $line; done < .env",
      "bash -c 'cat .env'",
      "echo $(cat app/.env.local)",
      "cat ~/.ssh/id_ed25519",
      "cat $HOME/.ssh/id_ed25519",
      "cp ~/.aws/credentials /tmp/",
      "cat deploy/server.pem",
      "cat ~/.npmrc",
      "grep authToken .npmrc",
      "cat ~/.git-credentials",
      // node-options in a project's .npmrc runs code in the next `npx docket` started there.
      "echo 'node-options=--require ./x.js' >> .npmrc",
      "printf 'node-options=--import=./x.mjs' > app/.npmrc",
    ]) {
      expect(await decide("run_command", { command }), command).toMatchObject({
        decision: "deny",
        reason: "denied: secrets stay secret",
      });
    }
  });

  it("denies secrets to every file tool, search and listing included", async () => {
    for (const tool of ["read_file", "write_file", "edit_file", "list_files", "search_files"]) {
      expect(await decide(tool, { path: "app/.env.local" }), tool).toMatchObject({
        decision: "deny",
      });
    }
    // What a listing or a search of `.` leaves out (the handlers ask this; see builtin tests).
    expect(engine.deniedPath(join(ws, "app", ".env.local"))).toMatchObject({
      reason: "denied: secrets stay secret",
    });
    expect(engine.deniedPath(join(ws, "README.md"))).toBeUndefined();
  });

  it("lets no allow rule read docket's process, other processes or docket's files", async () => {
    for (const command of [
      "cat /proc/$PPID/environ",
      "cat /proc/self/environ",
      "cat /proc/1/cmdline",
      "grep -a KEY /proc/12345/environ",
      "cat .docket/docket.db",
      "cat docket.yaml",
    ]) {
      expect((await decide("run_command", { command })).decision, command).toBe("deny");
    }
    expect((await decide("read_file", { path: "/proc/self/environ" })).decision).toBe("deny");
  });

  it("denies the agent's own approval through a faked terminal", async () => {
    expect(
      await decide("run_command", {
        command: 'script -qc "docket approvals approve x --as me" /dev/null',
      }),
    ).toMatchObject({ decision: "deny", rule: "docket:self-protection", layer: "docket" });
  });

  it("a recursive grep cannot be caught by analysis: the sandbox hides the files instead", async () => {
    // `grep -r SECRET .` names no secret; only the sandbox of run_command (which hides the files
    // deny path rules protect) keeps `.env` out of its output.
    expect((await decide("run_command", { command: "grep -r SECRET ." })).decision).toBe("allow");
  });

  it("still allows the everyday commands it lists", async () => {
    for (const command of ["ls -la", "cat README.md", "git status", "grep -n TODO src/a.ts"]) {
      expect((await decide("run_command", { command })).decision, command).toBe("allow");
    }
  });
});
