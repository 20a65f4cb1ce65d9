import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { type HostWorkspace, hostWorkspace } from "./host-e2e.js";

/** The workspace of a containment test, with what its script tries to reach. */
export interface PeekWorkspace extends HostWorkspace {
  /** Whether a process the script left running is still there (its pids, or ""). */
  lingering(): string;
  /**
   * Assert that the script ran contained: what it wrote to `seen.txt` shows no `token`, no docket
   * config, no secret and nothing of the host's registration (`marker`), and nothing it left runs.
   */
  expectContained(token: string, marker: string): Promise<void>;
}

/** The secret a deny rule protects in a peek workspace's `.env`. */
export const PEEK_SECRET = "hunter2-secret";

/**
 * A host test's workspace where every shell command is allowed by rule `shell-ok`, `.env` holds a
 * secret a deny rule protects, and `peek.sh` (which an agent could have written) prints the token
 * in `tokenVar`, cats docket.yaml, `.env` and `settings` (the host's registration), leaves a
 * `sleep` running and prints "peeked". Contained, it sees none of it and leaves nothing.
 *
 * @example
 * ```ts
 * const w = await peekWorkspace("claude", { dirs: ["ws/.claude"], tokenVar: "DOCKET_TOKEN", settings: ".claude/settings.json", linger: "417.25" });
 * ```
 */
export async function peekWorkspace(
  name: string,
  {
    dirs,
    tokenVar,
    settings,
    linger,
  }: { dirs: string[]; tokenVar: string; settings: string; linger: string },
): Promise<PeekWorkspace> {
  const w = await hostWorkspace(name, {
    dirs,
    policy: [
      "policy:",
      "  rules:",
      "    - { id: shell-ok, tool: run_command, decision: allow }",
      "    - { id: no-env, tool: read_file, path: '.env', decision: deny }",
      "",
    ].join("\n"),
  });
  await writeFile(join(w.ws, ".env"), `DB_PASSWORD=${PEEK_SECRET}\n`);
  await writeFile(
    join(w.ws, "peek.sh"),
    [
      `echo "token=[$${tokenVar}]"`,
      `cat docket.yaml .env ${settings} 2>&1 | head -c 2000`,
      `(sleep ${linger} &)`,
      "echo peeked",
      "",
    ].join("\n"),
  );
  const lingering = () => {
    try {
      return execFileSync("pgrep", ["-f", `sleep ${linger}`], { encoding: "utf8" }).trim();
    } catch {
      return "";
    }
  };
  const expectContained = async (token: string, marker: string) => {
    const seen = await readFile(join(w.ws, "seen.txt"), "utf8");
    expect(seen).toContain("peeked");
    expect(seen).toContain("token=[]");
    expect(seen).not.toContain(token);
    expect(seen).not.toContain(PEEK_SECRET);
    expect(seen).not.toContain("shell-ok");
    expect(seen).not.toContain(marker);
    expect(lingering()).toBe("");
  };
  return { ...w, lingering, expectContained };
}
