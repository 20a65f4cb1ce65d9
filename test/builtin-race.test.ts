import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { builtinTools, createCheckpoint } from "../src/index.js";

// A separate process swaps `ws/d` between a real folder and a symlink to a folder outside the
// workspace, as fast as it can, while docket lists and searches: the check-then-use race.
const SWAPPER = `
const fs = require("node:fs");
const [ws, outside] = process.argv.slice(1);
fs.symlinkSync(outside, ws + "/link");
process.stdout.write("ready\\n");
for (;;) {
  try {
    fs.renameSync(ws + "/d", ws + "/saved");
    fs.renameSync(ws + "/link", ws + "/d");
    fs.renameSync(ws + "/d", ws + "/link");
    fs.renameSync(ws + "/saved", ws + "/d");
  } catch {}
}
`;

let base: string;
let ws: string;
let swapper: ChildProcess | undefined;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "docket-race-")));
  ws = join(base, "ws");
  const outside = join(base, "outside");
  await mkdir(join(ws, "d", "sub"), { recursive: true });
  await mkdir(join(outside, "sub"), { recursive: true });
  await writeFile(join(ws, "d", "inside.txt"), "an ordinary file\n");
  await writeFile(join(ws, "d", "sub", "inside-too.txt"), "an ordinary file\n");
  await writeFile(join(outside, "outside-secret.txt"), "TOP-SECRET outside the workspace\n");
  await writeFile(join(outside, "sub", "outside-secret-2.txt"), "TOP-SECRET again\n");
  const child = spawn(process.execPath, ["-e", SWAPPER, ws, outside], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  swapper = child;
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once("data", () => resolve());
    child.once("error", reject);
  });
});

afterEach(async () => {
  const child = swapper;
  swapper = undefined;
  if (child && child.exitCode === null) {
    const gone = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await gone;
  }
  await rm(base, { recursive: true, force: true });
});

/** Run `attempt` about `rounds` times (or until the time budget is spent) and tally. */
async function race(
  tool: "list_files" | "search_files",
  argsFor: (i: number) => Record<string, unknown>,
  rounds = 2000,
  budgetMs = 25_000,
) {
  const checkpoint = createCheckpoint({
    tools: builtinTools({ workspace: ws }),
    policy: () => ({ decision: "allow" }),
    events: { emit: () => {} },
  });
  const tally = { runs: 0, escaped: 0, sawInside: 0, refused: 0, escapes: [] as string[] };
  const until = Date.now() + budgetMs;
  for (let i = 0; i < rounds && Date.now() < until; i += 1) {
    const result = await checkpoint.dispatch({
      id: `c${i}`,
      name: tool,
      arguments: JSON.stringify(argsFor(i)),
    });
    tally.runs += 1;
    const text = result.status === "ok" ? JSON.stringify(result.output) : result.message;
    if (/outside-secret|TOP-SECRET/.test(text)) {
      tally.escaped += 1;
      if (tally.escapes.length < 3) tally.escapes.push(text.slice(0, 300));
    }
    if (/inside/.test(text)) tally.sawInside += 1;
    if (result.status !== "ok") tally.refused += 1;
  }
  return tally;
}

describe("a folder swapped for a symlink while the file tools walk it", () => {
  it("list_files never shows a file outside the workspace", async () => {
    const tally = await race("list_files", (i) => ({ path: i % 2 === 0 ? "." : "d" }));
    expect(tally.escapes).toEqual([]);
    expect(tally.escaped).toBe(0);
    // The race was live: listings saw the real folder, and some met the symlink (refused).
    expect(tally.runs).toBeGreaterThan(200);
    expect(tally.sawInside).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0);
  }, 60_000);

  it("search_files never shows a line from outside the workspace", async () => {
    const tally = await race("search_files", (i) => ({
      pattern: "SECRET|ordinary|outside",
      path: i % 2 === 0 ? "." : "d",
    }));
    expect(tally.escapes).toEqual([]);
    expect(tally.escaped).toBe(0);
    expect(tally.runs).toBeGreaterThan(200);
    expect(tally.sawInside).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0);
  }, 60_000);
});
