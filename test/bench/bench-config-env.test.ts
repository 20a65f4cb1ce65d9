import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { benchConfigEnv } from "../../bench/built-cli.js";

// A bench that starts the built CLI (`builtCli`) starts docket as a user would: without an
// environment of its own the CLI keeps its audit key, digest log and caches in the user's
// ~/.config/docket, and `npm run bench hook` once appended a hundred bench attestations to it.
const benchDir = fileURLToPath(new URL("../../bench/", import.meta.url));

/** The argument text of every child-process call in a text, parentheses matched. */
function childCalls(text: string): string[] {
  const calls: string[] = [];
  for (const match of text.matchAll(/\b(spawn|spawnSync|fork|execFile|execFileSync)\(/g)) {
    let depth = 0;
    let end = match.index + match[0].length - 1;
    for (; end < text.length; end += 1) {
      if (text[end] === "(") depth += 1;
      else if (text[end] === ")" && --depth === 0) break;
    }
    calls.push(text.slice(match.index, end + 1));
  }
  return calls;
}

describe("the benches' docket processes", () => {
  it("finds each child-process call and whether it gives an environment", () => {
    const text = `spawn(process.execPath, [main, "run"], { cwd });
      spawn(process.execPath, args, { cwd, env: benchConfigEnv(dir) });`;
    expect(childCalls(text).map((call) => /\benv\b/.test(call))).toEqual([false, true]);
  });

  it("get a config folder of the bench's own", () => {
    const env = benchConfigEnv("/tmp/bench-x");
    expect(env.XDG_CONFIG_HOME).toBe("/tmp/bench-x/config");
    expect(env.PATH).toBe(process.env.PATH);
  });

  it("every bench that starts the built CLI gives each child an environment", async () => {
    const missing: string[] = [];
    let checked = 0;
    for (const name of await readdir(benchDir)) {
      if (!name.endsWith(".ts")) continue;
      const text = await readFile(join(benchDir, name), "utf8");
      if (name === "built-cli.ts" || !text.includes("builtCli(")) continue;
      for (const call of childCalls(text)) {
        checked += 1;
        if (!/\benv\b/.test(call)) missing.push(`bench/${name}: ${call.split("\n")[0]}`);
      }
    }
    expect(checked).toBeGreaterThan(0);
    expect(missing).toEqual([]);
  });
});
