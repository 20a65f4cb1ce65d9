import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BuiltinRefusal } from "../builtin-refusal.js";
import { writeFileAtomic } from "./atomic-write.effect.js";
import { resolveInWorkspace } from "./resolve-in-workspace.js";

let base: string;
let ws: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "docket-write-")));
  ws = path.join(base, "ws");
  outside = path.join(base, "outside");
  await mkdir(path.join(ws, "sub"), { recursive: true });
  await mkdir(outside, { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("writeFileAtomic", () => {
  it("creates missing parents and leaves no temp files", async () => {
    const target = await resolveInWorkspace(ws, "a/b/c.txt", { forWrite: true });
    expect(await writeFileAtomic(target, "hello")).toEqual({ created: true, bytes: 5 });
    expect(await readFile(path.join(ws, "a", "b", "c.txt"), "utf8")).toBe("hello");
    expect(await readdir(path.join(ws, "a", "b"))).toEqual(["c.txt"]);
  });

  it("overwrites in place and keeps the file's permission bits", async () => {
    const file = path.join(ws, "sub", "run.sh");
    await writeFile(file, "old");
    await chmod(file, 0o751);
    const target = await resolveInWorkspace(ws, "sub/run.sh", { forWrite: true });
    expect(await writeFileAtomic(target, "new")).toEqual({ created: false, bytes: 3 });
    expect(await readFile(file, "utf8")).toBe("new");
    expect((await stat(file)).mode & 0o777).toBe(0o751);
  });

  it("writes the real target of an inside symlink and keeps the link", async () => {
    await writeFile(path.join(ws, "sub", "real.txt"), "old");
    await symlink(path.join(ws, "sub", "real.txt"), path.join(ws, "alias.txt"));
    const target = await resolveInWorkspace(ws, "alias.txt", { forWrite: true });
    await writeFileAtomic(target, "new");
    expect(await readFile(path.join(ws, "sub", "real.txt"), "utf8")).toBe("new");
    expect(await readFile(path.join(ws, "alias.txt"), "utf8")).toBe("new");
  });

  it("refuses when a missing parent is planted as a symlink to outside after the check", async () => {
    const target = await resolveInWorkspace(ws, "planted/deep/file.txt", { forWrite: true });
    await symlink(outside, path.join(ws, "planted"));
    const error = await writeFileAtomic(target, "x").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BuiltinRefusal);
    expect(await readdir(outside)).toEqual([]);
  });

  it("refuses when the parent folder is swapped for a symlink to outside after the check", async () => {
    await writeFile(path.join(ws, "sub", "file.txt"), "inside");
    const target = await resolveInWorkspace(ws, "sub/file.txt", { forWrite: true });
    await rename(path.join(ws, "sub"), path.join(ws, "sub-moved"));
    await symlink(outside, path.join(ws, "sub"));
    const error = await writeFileAtomic(target, "x").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BuiltinRefusal);
    expect(await readdir(outside)).toEqual([]);
  });

  it("replaces a symlink swapped in at the final name instead of writing through it", async () => {
    await writeFile(path.join(ws, "sub", "file.txt"), "inside");
    await writeFile(path.join(outside, "victim.txt"), "untouched");
    const target = await resolveInWorkspace(ws, "sub/file.txt", { forWrite: true });
    await rm(path.join(ws, "sub", "file.txt"));
    await symlink(path.join(outside, "victim.txt"), path.join(ws, "sub", "file.txt"));
    await writeFileAtomic(target, "new");
    expect(await readFile(path.join(outside, "victim.txt"), "utf8")).toBe("untouched");
    expect(await readFile(path.join(ws, "sub", "file.txt"), "utf8")).toBe("new");
  });

  it("refuses to replace a directory", async () => {
    const target = await resolveInWorkspace(ws, "sub/x", { forWrite: true });
    await mkdir(path.join(ws, "sub", "x"));
    const error = await writeFileAtomic(target, "x").catch((caught: unknown) => caught);
    expect((error as BuiltinRefusal).code).toBe("is_directory");
  });
});
