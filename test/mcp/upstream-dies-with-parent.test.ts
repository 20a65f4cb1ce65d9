import { execFileSync, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tsxLoader, waitFor } from "./support/mcp-fixtures.js";

const parentScript = fileURLToPath(new URL("./support/busy-upstream-parent.ts", import.meta.url));

/** The live (not zombie) processes of a process group, as ps sees them. */
function liveMembers(group: number): string[] {
  let out = "";
  try {
    out = execFileSync("ps", ["-o", "pid=,stat=", "-g", String(group)], { encoding: "utf8" });
  } catch {
    return []; // ps exits 1 when the group is empty
  }
  return out
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/^\d+\s+Z/.test(line));
}

describe("an unsandboxed stdio upstream", () => {
  it("dies with a SIGKILLed parent, even busy and ignoring SIGTERM", async () => {
    const parent = spawn(process.execPath, ["--import", tsxLoader, parentScript], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    parent.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    await waitFor(() => /GROUP \d+/.test(out), 20_000, "the upstream to start");
    const group = Number(/GROUP (\d+)/.exec(out)?.[1]);
    expect(liveMembers(group).length).toBeGreaterThanOrEqual(1);
    const exited = new Promise((resolve) => parent.once("exit", resolve));
    parent.kill("SIGKILL");
    await exited;
    // TERM first, KILL two seconds later for one that ignores TERM: well within 5 s, not 37.
    await waitFor(() => liveMembers(group).length === 0, 5_000, "the upstream group to end");
    expect(liveMembers(group)).toEqual([]);
  }, 30_000);
});
