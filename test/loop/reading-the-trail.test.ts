import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { jsonLines, runDocketIn } from "./support/run-child.js";
import { tempDir } from "./support/temp-dir.js";

const page = fileURLToPath(new URL("../../docs/reading-the-trail.md", import.meta.url));

/** The `docket …` commands of the page's sh blocks, comments dropped, split into words. */
async function pageCommands(): Promise<string[][]> {
  const text = await readFile(page, "utf8");
  const blocks = [...text.matchAll(/```sh(?:[ \t][^\n]*)?\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  return blocks
    .flatMap((block) => block.split("\n"))
    .map((line) => line.replace(/#.*$/, "").trim())
    .filter((line) => line.startsWith("docket "))
    .map((line) => line.split(/\s+/).slice(1));
}

describe("docs/reading-the-trail.md, run as written", () => {
  it("every command works against the store of a denied demo, and says what the page says", async () => {
    const cwd = await tempDir("docket-trail-");
    const store = `sqlite:${join(cwd, "docket.db")}`;
    const demo = await runDocketIn(cwd, ["demo", "--deny", "--json", "--store", store]);
    expect(demo.code, demo.stderr).toBe(0);
    const sessionId = String(jsonLines(demo.stdout).at(-1)?.sessionId);

    const commands = await pageCommands();
    expect(commands.length).toBeGreaterThanOrEqual(7);
    const outputs = new Map<string, string>();
    for (const words of commands) {
      const args = words.map((w) => (w === "SESSION" ? sessionId : w));
      const { code, stdout, stderr } = await runDocketIn(cwd, [...args, "--store", store]);
      expect(code, `${words.join(" ")}: ${stderr}`).toBe(0);
      outputs.set(words.join(" "), stdout);
    }
    const story = outputs.get("audit list --session SESSION") ?? "";
    expect(story.split("\n")[0]).toMatch(
      /^TIME +CALL +TOOL +DECISION +RULE +BY +STATUS +REASON +HANDLER +WAIT$/,
    );
    // As it happened: the invented tool name first, the escalation last; the lead's denial named.
    const calls = story
      .split("\n")
      .slice(1, -1)
      .map((line) => line.split(/\s+/)[1]);
    expect(calls.slice(0, 2)).toEqual(["call_invented", "call_lookup"]);
    expect(calls.at(-1)).toBe("call_escalate");
    expect(story).toMatch(/call_partial_refund +issue_refund +ask +refund-ceiling +lead +refused/);
    const latest = outputs.get("audit list --reverse --limit 20") ?? "";
    expect(latest.split("\n")[1]).toContain("call_escalate");
    expect(jsonLines(outputs.get("audit list --status failed --json") ?? "")).toMatchObject([
      { callId: "call_missing", status: "failed" },
    ]);
    expect(outputs.get("audit show call_partial_refund")).toMatch(
      /approval_denied\n {8}by: lead\n {8}reason: denied with --deny\n/,
    );
    expect(outputs.get("sessions list")).toContain("My walnut desk (order SU-88421) arrived");
    const conversation = outputs.get("sessions show SESSION") ?? "";
    expect(conversation).toContain("\nuser: My walnut desk");
    expect(conversation).toContain("\n  → issue_refund ");
    expect(conversation).toContain("\n  ← issue_refund refused (approval_denied): lead denied");
    expect(JSON.parse(outputs.get("sessions show SESSION --json") ?? "{}")).toMatchObject({
      session: { id: sessionId },
    });
  });
});
