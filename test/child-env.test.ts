import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// A docket process a test starts over MCP's stdio transport gets only the SDK's few default
// variables unless the test passes `env`: it would then lose the run's XDG_CONFIG_HOME and write
// the real user's audit key and digest log (test/support/child-env.ts). This reads the tests.
const root = fileURLToPath(new URL("..", import.meta.url));

async function testFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== "node_modules" && entry.name !== "fixtures") {
      found.push(...(await testFiles(path)));
    } else if (entry.isFile() && entry.name.endsWith(".ts")) found.push(path);
  }
  return found;
}

/** The option objects of every `new StdioClientTransport({…})` in a text, braces matched. */
function transportOptions(text: string): string[] {
  const options: string[] = [];
  const opener = "new StdioClientTransport(";
  for (let at = text.indexOf(opener); at !== -1; at = text.indexOf(opener, at + 1)) {
    let start = at + opener.length;
    while (/\s/.test(text[start] ?? "")) start += 1;
    if (text[start] !== "{") {
      options.push(text.slice(start, text.indexOf(")", start)));
      continue;
    }
    let depth = 0;
    let end = start;
    for (; end < text.length; end += 1) {
      if (text[end] === "{") depth += 1;
      else if (text[end] === "}" && --depth === 0) break;
    }
    options.push(text.slice(start, end + 1));
  }
  return options;
}

describe("the tests' MCP stdio children", () => {
  it("finds each transport's options and whether they give an environment", () => {
    const text = `a(new StdioClientTransport({ command: "x", args: [{ a: 1 }] }));
      b(new StdioClientTransport({ command: "y", env: childEnv() }));`;
    expect(transportOptions(text).map((o) => /\benv\b/.test(o))).toEqual([false, true]);
  });

  it("all get the test run's environment, so none reaches the real user's ~/.config/docket", async () => {
    const missing: string[] = [];
    const files = [
      ...(await testFiles(join(root, "test"))),
      ...(await testFiles(join(root, "examples"))),
    ];
    for (const path of files) {
      // This file's own examples above are not transports.
      if (path === fileURLToPath(import.meta.url)) continue;
      const text = await readFile(path, "utf8");
      for (const options of transportOptions(text)) {
        if (!/\benv\s*[:,}]/.test(options)) missing.push(relative(root, path));
      }
    }
    expect(missing).toEqual([]);
  });
});
