import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { builtinTools } from "../builtin/builtin-tools.js";
import { terminalStyle } from "../shared/terminal-style.js";
import { previewCall, renderDiff } from "./call-preview.js";

let dir: string;
let outside: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-preview-"));
  outside = await mkdtemp(join(tmpdir(), "docket-preview-out-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const tool = (name: string) => {
  const found = builtinTools({ workspace: "/" }).find((t) => t.name === name);
  if (!found) throw new Error(name);
  return found;
};

describe("the change an approver is shown", () => {
  it("diffs write_file against the file, or marks a new file", async () => {
    await writeFile(join(dir, "a.txt"), "one\ntwo\n");
    const diff = await previewCall(
      { tool: tool("write_file"), args: { path: "a.txt", content: "one\n2\n" } },
      { workspace: dir },
    );
    expect(diff).toBe("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n");
    const fresh = await previewCall(
      { tool: tool("write_file"), args: { path: "b.txt", content: "x\n" } },
      { workspace: dir },
    );
    expect(fresh).toContain("(new file)\n--- a/b.txt\n+++ b/b.txt\n@@ -0,0 +1,1 @@\n+x\n");
  });

  it("applies edit_file's edit, and says when it would be refused", async () => {
    await writeFile(join(dir, "a.txt"), "x = 1\ny = 1\n");
    const edit = (old_string: string) =>
      previewCall(
        { tool: tool("edit_file"), args: { path: "a.txt", old_string, new_string: "z = 2" } },
        { workspace: dir },
      );
    expect(await edit("x = 1")).toContain("-x = 1\n+z = 2\n");
    expect(await edit("= 1")).toContain("more than once");
    expect(await edit("nope")).toContain("nowhere");
  });

  it("never reads outside the workspace, even through a symbolic link", async () => {
    await writeFile(join(outside, "secret"), "top secret\n");
    await symlink(join(outside, "secret"), join(dir, "link"));
    for (const path of ["../secret", join(outside, "secret"), "link"]) {
      const diff = await previewCall(
        { tool: tool("write_file"), args: { path, content: "x" } },
        { workspace: dir },
      );
      expect(diff, path).toMatch(/^\(no diff: /);
      expect(diff).not.toContain("top secret");
    }
  });

  it("does not show a file the caller says is protected", async () => {
    await writeFile(join(dir, "secret.txt"), "top secret\n");
    const diff = await previewCall(
      { tool: tool("write_file"), args: { path: "secret.txt", content: "x" } },
      {
        workspace: dir,
        hidden: (absolute) => (absolute.endsWith("secret.txt") ? "rule no-secrets" : undefined),
      },
    );
    expect(diff).toBe("(no diff: the file is protected (rule no-secrets))");
  });

  it("shows control characters and cuts long diffs", () => {
    const long = Array.from({ length: 300 }, (_, i) => `+line ${i}`).join("\n");
    const shown = renderDiff(`+\u001b[31mred\n${long}`, terminalStyle(false), "  ");
    expect(shown.startsWith("  +\\u{001b}[31mred\n")).toBe(true);
    expect(shown).toContain("more lines of diff");
  });
});
