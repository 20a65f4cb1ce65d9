import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DocketError } from "../../errors/docket-error.js";
import { BuiltinRefusal } from "../builtin-refusal.js";
import { isInside, resolveInWorkspace } from "./resolve-in-workspace.js";

let base: string;
let ws: string;
let outside: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "docket-jail-")));
  ws = path.join(base, "ws");
  outside = path.join(base, "outside");
  await mkdir(path.join(ws, "sub"), { recursive: true });
  await mkdir(path.join(outside, "dir"), { recursive: true });
  await writeFile(path.join(ws, "a.txt"), "a\n");
  await writeFile(path.join(ws, "sub", "b.txt"), "b\n");
  await writeFile(path.join(outside, "secret.txt"), "secret\n");
  await symlink(path.join(outside, "secret.txt"), path.join(ws, "link-file"));
  await symlink(path.join(outside, "dir"), path.join(ws, "link-dir"));
  await symlink(path.join(ws, "sub"), path.join(ws, "link-inside"));
  await symlink(path.join(ws, "nowhere"), path.join(ws, "dangling"));
  await symlink(path.join(ws, "loop-b"), path.join(ws, "loop-a"));
  await symlink(path.join(ws, "loop-a"), path.join(ws, "loop-b"));
  await symlink(ws, path.join(base, "ws-link"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refusal(promise: Promise<unknown>): Promise<BuiltinRefusal> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BuiltinRefusal);
  return error as BuiltinRefusal;
}

describe("resolveInWorkspace", () => {
  it("resolves relative paths against the workspace and normalises ..", async () => {
    const target = await resolveInWorkspace(ws, "sub/../a.txt", { mustExist: true });
    expect(target.absolute).toBe(path.join(ws, "a.txt"));
    expect(target.relative).toBe("a.txt");
    expect(target.kind).toBe("file");
    expect(target.identity?.ino).toBeTypeOf("bigint");
  });

  it("accepts absolute paths inside and the root itself", async () => {
    expect((await resolveInWorkspace(ws, path.join(ws, "sub", "b.txt"))).relative).toBe(
      "sub/b.txt",
    );
    const root = await resolveInWorkspace(ws, ".");
    expect(root.relative).toBe(".");
    expect(root.kind).toBe("directory");
  });

  it("refuses ../ escapes", async () => {
    const error = await refusal(resolveInWorkspace(ws, "../outside/secret.txt"));
    expect(error.code).toBe("outside_workspace");
    expect(error.message).toContain("outside the workspace");
    expect((await refusal(resolveInWorkspace(ws, "sub/../../outside"))).code).toBe(
      "outside_workspace",
    );
  });

  it("refuses absolute paths outside", async () => {
    expect((await refusal(resolveInWorkspace(ws, "/etc/passwd"))).code).toBe("outside_workspace");
    expect((await refusal(resolveInWorkspace(ws, `${ws}-sibling/x`))).code).toBe(
      "outside_workspace",
    );
  });

  it("expands ~ to the home folder, which is outside", async () => {
    expect(isInside(ws, homedir())).toBe(false);
    expect((await refusal(resolveInWorkspace(ws, "~"))).code).toBe("outside_workspace");
    expect((await refusal(resolveInWorkspace(ws, "~/.ssh/id_rsa"))).code).toBe("outside_workspace");
    expect((await refusal(resolveInWorkspace(ws, "~root/x"))).code).toBe("invalid_path");
  });

  it("refuses a symlink to a file outside, naming the link", async () => {
    const error = await refusal(resolveInWorkspace(ws, "link-file"));
    expect(error.code).toBe("outside_workspace");
    expect(error.message).toContain("through a symbolic link");
  });

  it("refuses a symlink to a folder outside, for the folder and anything below it", async () => {
    expect((await refusal(resolveInWorkspace(ws, "link-dir"))).code).toBe("outside_workspace");
    expect((await refusal(resolveInWorkspace(ws, "link-dir/new/file.txt"))).code).toBe(
      "outside_workspace",
    );
  });

  it("follows symlinks that stay inside, to their real path", async () => {
    const target = await resolveInWorkspace(ws, "link-inside/b.txt", { mustExist: true });
    expect(target.absolute).toBe(path.join(ws, "sub", "b.txt"));
  });

  it("works when the workspace path itself is a symlink", async () => {
    const target = await resolveInWorkspace(path.join(base, "ws-link"), "a.txt", {
      mustExist: true,
    });
    expect(target.absolute).toBe(path.join(ws, "a.txt"));
    expect(target.workspaceRoot).toBe(ws);
  });

  it("refuses dangling symlinks and symlink loops", async () => {
    expect((await refusal(resolveInWorkspace(ws, "dangling"))).code).toBe("dangling_symlink");
    expect((await refusal(resolveInWorkspace(ws, "loop-a/x"))).code).toBe("symlink_loop");
  });

  it("refuses NUL bytes, very long paths and very long names", async () => {
    expect((await refusal(resolveInWorkspace(ws, "a.txt\0.png"))).code).toBe("invalid_path");
    expect((await refusal(resolveInWorkspace(ws, "a/".repeat(3000)))).code).toBe("path_too_long");
    expect((await refusal(resolveInWorkspace(ws, "x".repeat(300)))).code).toBe("path_too_long");
  });

  it("describes missing targets and refuses them when they must exist", async () => {
    const target = await resolveInWorkspace(ws, "sub/new/deeper/file.txt");
    expect(target.kind).toBe("missing");
    expect(target.existingAncestor).toBe(path.join(ws, "sub"));
    expect(target.missing).toEqual(["new", "deeper", "file.txt"]);
    expect((await refusal(resolveInWorkspace(ws, "nope.txt", { mustExist: true }))).code).toBe(
      "not_found",
    );
    expect((await refusal(resolveInWorkspace(ws, "a.txt/child"))).code).toBe("not_a_directory");
  });

  it("refuses directories and the root for writes", async () => {
    expect((await refusal(resolveInWorkspace(ws, "sub", { forWrite: true }))).code).toBe(
      "is_directory",
    );
    expect((await refusal(resolveInWorkspace(ws, ".", { forWrite: true }))).code).toBe(
      "is_directory",
    );
  });

  it("reports a missing workspace as a developer error", async () => {
    await expect(resolveInWorkspace(path.join(base, "missing-ws"), "a")).rejects.toBeInstanceOf(
      DocketError,
    );
  });

  it("never yields a path outside the workspace, whatever the segments", async () => {
    const segment = fc.constantFrom(
      "..",
      ".",
      "a.txt",
      "sub",
      "new",
      "link-dir",
      "link-inside",
      "",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { maxLength: 6 }),
        fc.boolean(),
        async (parts, absolute) => {
          const input = (absolute ? `${ws}/` : "") + parts.join("/");
          try {
            const target = await resolveInWorkspace(ws, input);
            expect(isInside(ws, target.absolute)).toBe(true);
          } catch (error) {
            expect(error).toBeInstanceOf(BuiltinRefusal);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
