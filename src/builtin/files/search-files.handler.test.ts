import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BuiltinContext } from "../builtin-context.js";
import { BuiltinRefusal } from "../builtin-refusal.js";
import { searchFiles } from "./search-files.handler.js";

let base: string;
let ctx: BuiltinContext;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "docket-search-")));
  const ws = path.join(base, "ws");
  ctx = { workspace: ws, signal: new AbortController().signal };
  const files: Record<string, string | Buffer> = {
    ".gitignore": "dist/\n",
    "src/a.ts": "const x = 1;\n// TODO: rename x\nexport { x };\n",
    "src/b.ts": "// todo lower case\nfunction handler() {}\n",
    "src/notes.md": "TODO in markdown\n",
    "dist/bundle.js": "// TODO in ignored output\n",
    "logo.png": Buffer.concat([Buffer.from("TODO"), Buffer.from([0, 1, 2, 3])]),
    "minified.js": `${"a".repeat(5000)}TODO${"b".repeat(5000)}\n`,
    "many.txt": Array.from({ length: 50 }, (_, i) => `hit ${i}`).join("\n"),
  };
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(ws, file)), { recursive: true });
    await writeFile(path.join(ws, file), content);
  }
  await writeFile(path.join(base, "secret.txt"), "TODO secret outside\n");
  await symlink(path.join(base, "secret.txt"), path.join(ws, "link-out.txt"));
  await symlink(path.join(ws, "src", "notes.md"), path.join(ws, "link-in.md"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("searchFiles", () => {
  it("finds matching lines as file:line: text, skipping binary, ignored and outside files", async () => {
    const result = await searchFiles({ pattern: "TODO" }, ctx);
    const files = result.matches.map((match) => match.file);
    expect(files).toContain("src/a.ts");
    expect(files).toContain("src/notes.md");
    expect(files).not.toContain("link-in.md");
    expect(files).not.toContain("dist/bundle.js");
    expect(files).not.toContain("logo.png");
    expect(files).not.toContain("link-out.txt");
    expect(result.text).toContain("src/a.ts:2: // TODO: rename x");
    expect(result.skipped.binary).toBe(1);
    expect(JSON.stringify(result)).not.toContain("secret outside");
  });

  it("follows a link named as the path only when it stays inside", async () => {
    const inside = await searchFiles({ pattern: "TODO", path: "link-in.md" }, ctx);
    expect(inside.text).toBe("src/notes.md:1: TODO in markdown");
    const error = await searchFiles({ pattern: "TODO", path: "link-out.txt" }, ctx).catch(
      (caught: unknown) => caught,
    );
    expect((error as BuiltinRefusal).code).toBe("outside_workspace");
  });

  it("filters by glob and matches case-insensitively on request", async () => {
    const result = await searchFiles({ pattern: "todo", glob: "*.ts", ignore_case: true }, ctx);
    expect(result.matches.map((m) => `${m.file}:${m.line}`)).toEqual(["src/a.ts:2", "src/b.ts:1"]);
  });

  it("searches a single file when the path is a file", async () => {
    const result = await searchFiles({ pattern: "function \\w+", path: "src/b.ts" }, ctx);
    expect(result.text).toBe("src/b.ts:2: function handler() {}");
  });

  it("shows a window around the match on very long lines", async () => {
    const result = await searchFiles({ pattern: "TODO", path: "minified.js" }, ctx);
    const text = result.matches[0]?.text ?? "";
    expect(text.length).toBeLessThanOrEqual(302);
    expect(text).toContain("TODO");
    expect(text.startsWith("…")).toBe(true);
  });

  it("caps the matches and says so", async () => {
    const result = await searchFiles({ pattern: "^hit" }, ctx, { maxMatches: 5 });
    expect(result.matches).toHaveLength(5);
    expect(result.truncated).toBe(true);
    expect(result.text).toContain("stopped at 5 matches");
  });

  it("refuses a bad regular expression with the engine's message", async () => {
    const error = await searchFiles({ pattern: "(unclosed" }, ctx).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(BuiltinRefusal);
    expect((error as BuiltinRefusal).code).toBe("invalid_regex");
    expect((error as BuiltinRefusal).message).toContain("Unterminated group");
  });

  it("reports no matches plainly", async () => {
    const result = await searchFiles({ pattern: "zzz-not-there", path: "src" }, ctx);
    expect(result.text).toBe("No matches for /zzz-not-there/ in 3 file(s) under 'src'.");
    expect(result.truncated).toBe(false);
  });
});
