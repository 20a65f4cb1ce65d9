import { describe, expect, it } from "vitest";
import { describeFileChange } from "./describe-file-change.js";

describe("describeFileChange", () => {
  it("diffs a write against the current text", () => {
    expect(describeFileChange("write_file", { path: "a.txt", content: "new\n" }, "old\n")).toEqual({
      type: "file_change",
      tool: "write_file",
      path: "a.txt",
      basis: "current",
      patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-old\n+new\n",
    });
  });

  it("shows a write of an unread or missing file as a new file", () => {
    for (const current of [undefined, "missing"] as const) {
      const change = describeFileChange(
        "write_file",
        { path: "n.txt", content: "x\ny\n" },
        current,
      );
      expect(change?.basis).toBe("new_file");
      expect(change?.patch).toContain("+x\n+y\n");
    }
  });

  it("applies a unique edit to the current text, and falls back to the snippet otherwise", () => {
    const args = { path: "s.ts", old_string: "b", new_string: "B" };
    const whole = describeFileChange("edit_file", args, "a\nb\nc\n");
    expect(whole?.basis).toBe("current");
    expect(whole?.patch).toContain(" a\n-b\n+B\n c\n");
    expect(describeFileChange("edit_file", args, "b\nb\n")?.basis).toBe("snippet");
    expect(describeFileChange("edit_file", args)?.patch).toMatch(/^-b\n(.*\n)?\+B$/m);
  });

  it("never makes up line numbers for a snippet: its hunk says they are not known", () => {
    const args = { path: "s.ts", old_string: "x\ny\n", new_string: "x\nY\n" };
    const whole = describeFileChange("edit_file", args, "1\n2\n3\n4\n5\n6\nx\ny\n");
    expect(whole?.patch).toContain("@@ -5,4 +5,4 @@\n 5\n 6\n x\n-y\n+Y\n");
    const snippet = describeFileChange("edit_file", args)?.patch ?? "";
    expect(snippet).not.toMatch(/@@ -\d/);
    expect(snippet).toContain(
      "@@ the replaced text only: its line numbers in the file are not known @@\n x\n-y\n+Y\n",
    );
  });

  it("describes nothing for other tools or arguments of the wrong shape", () => {
    expect(describeFileChange("run_command", { path: "a", content: "b" })).toBeUndefined();
    expect(describeFileChange("write_file", { path: 3, content: "b" })).toBeUndefined();
    expect(describeFileChange("write_file", null)).toBeUndefined();
    expect(describeFileChange("edit_file", { path: "a", old_string: "x" })).toBeUndefined();
  });
});
