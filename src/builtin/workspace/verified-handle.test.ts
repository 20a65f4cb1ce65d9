import { execFileSync } from "node:child_process";
import {
  mkdir,
  mkdtemp,
  readdir,
  realpath,
  rename,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BuiltinRefusal } from "../builtin-refusal.js";
import { resolveInWorkspace } from "./resolve-in-workspace.js";
import { openChildDirectory, openVerifiedDirectory, openVerifiedFile } from "./verified-handle.js";

let base: string;
let ws: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "docket-handle-")));
  ws = path.join(base, "ws");
  outside = path.join(base, "outside");
  await mkdir(path.join(ws, "sub"), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(ws, "sub", "file.txt"), "inside\n");
  await writeFile(path.join(outside, "file.txt"), "SECRET\n");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BuiltinRefusal);
  return (error as BuiltinRefusal).code;
}

describe("openVerifiedFile", () => {
  it("opens the checked file", async () => {
    const target = await resolveInWorkspace(ws, "sub/file.txt", { mustExist: true });
    const handle = await openVerifiedFile(target);
    try {
      expect((await handle.readFile()).toString()).toBe("inside\n");
    } finally {
      await handle.close();
    }
  });

  it("refuses when the file is swapped for a symlink to outside after the check", async () => {
    const target = await resolveInWorkspace(ws, "sub/file.txt", { mustExist: true });
    await rm(path.join(ws, "sub", "file.txt"));
    await symlink(path.join(outside, "file.txt"), path.join(ws, "sub", "file.txt"));
    expect(await codeOf(openVerifiedFile(target))).toBe("path_changed");
  });

  it("refuses when a parent folder is swapped for a symlink to outside after the check", async () => {
    const target = await resolveInWorkspace(ws, "sub/file.txt", { mustExist: true });
    await rename(path.join(ws, "sub"), path.join(ws, "sub-moved"));
    await symlink(outside, path.join(ws, "sub"));
    // O_NOFOLLOW only guards the last name; the handle's identity and kernel path catch this.
    expect(["path_changed", "outside_workspace"]).toContain(await codeOf(openVerifiedFile(target)));
  });

  it("refuses when a different file took the path", async () => {
    const target = await resolveInWorkspace(ws, "sub/file.txt", { mustExist: true });
    // Written beside it first, so the file system cannot hand back the same inode number.
    await writeFile(path.join(ws, "sub", "other.txt"), "other\n");
    await rename(path.join(ws, "sub", "other.txt"), path.join(ws, "sub", "file.txt"));
    expect(await codeOf(openVerifiedFile(target))).toBe("path_changed");
  });

  it("refuses a FIFO swapped in without blocking on it", async () => {
    const target = await resolveInWorkspace(ws, "sub/file.txt", { mustExist: true });
    await rm(path.join(ws, "sub", "file.txt"));
    execFileSync("mkfifo", [path.join(ws, "sub", "file.txt")]);
    expect(["not_a_file", "path_changed"]).toContain(await codeOf(openVerifiedFile(target)));
  });

  it("refuses directories with a pointer to list_files", async () => {
    const target = await resolveInWorkspace(ws, "sub", { mustExist: true });
    const error = await openVerifiedFile(target).catch((caught: unknown) => caught);
    expect((error as BuiltinRefusal).code).toBe("is_directory");
    expect((error as BuiltinRefusal).message).toContain("list_files");
  });
});

describe("openVerifiedDirectory", () => {
  it("names children inside the very directory it verified", async () => {
    const dir = await openVerifiedDirectory(ws, path.join(ws, "sub"));
    try {
      // Swap the path after verification: entries still land in the verified directory.
      await rename(path.join(ws, "sub"), path.join(ws, "sub-moved"));
      await symlink(outside, path.join(ws, "sub"));
      await writeFile(dir.entry("new.txt"), "x");
      if (process.platform === "linux") {
        expect((await realpath(path.join(ws, "sub-moved", "new.txt"))).startsWith(ws)).toBe(true);
        await expect(realpath(path.join(outside, "new.txt"))).rejects.toThrow();
      }
    } finally {
      await dir.close();
    }
  });

  it("refuses a directory path that became a symlink", async () => {
    await rename(path.join(ws, "sub"), path.join(ws, "sub-moved"));
    await symlink(outside, path.join(ws, "sub"));
    expect(await codeOf(openVerifiedDirectory(ws, path.join(ws, "sub")))).toBe("path_changed");
  });
});

describe("openChildDirectory", () => {
  it("opens a child through the verified parent, even after the parent's path is swapped", async () => {
    const root = await openVerifiedDirectory(ws, ws);
    try {
      const sub = await openChildDirectory(ws, root, "sub");
      try {
        expect(sub.path).toBe(path.join(ws, "sub"));
        await rename(path.join(ws, "sub"), path.join(ws, "sub-moved"));
        await symlink(outside, path.join(ws, "sub"));
        // Listed through the handle: the folder that was opened, not the link now at its path.
        const names = await readdir(sub.entry("."));
        expect(names).toEqual(["file.txt"]);
        if (process.platform === "linux") expect(sub.anchored).toBe(true);
      } finally {
        await sub.close();
      }
    } finally {
      await root.close();
    }
  });

  it("refuses a child that is a symlink, and one that is gone", async () => {
    const root = await openVerifiedDirectory(ws, ws);
    try {
      await symlink(outside, path.join(ws, "link"));
      expect(await codeOf(openChildDirectory(ws, root, "link"))).toBe("path_changed");
      expect(await codeOf(openChildDirectory(ws, root, "missing"))).toBe("not_found");
      await writeFile(path.join(ws, "plain.txt"), "x");
      expect(await codeOf(openChildDirectory(ws, root, "plain.txt"))).toBe("path_changed");
    } finally {
      await root.close();
    }
  });
});
