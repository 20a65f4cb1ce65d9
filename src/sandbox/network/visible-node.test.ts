import {
  chmodSync,
  chownSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sandboxCanRun, visibleNode } from "./visible-node.js";

// Real files and folders with real modes; the sandbox's user is docket's own uid and gid.
const me = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
const stranger = { uid: me.uid + 4242, gid: me.gid + 4242 };
let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "docket-visible-node-"));
  chmodSync(root, 0o755);
});
afterEach(() => {
  chmodSync(root, 0o755);
  rmSync(root, { recursive: true, force: true });
});

function program(dir: string, mode: number): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "node");
  writeFileSync(file, "#!/bin/sh\necho fake-node\n");
  chmodSync(file, mode);
  return file;
}

describe("sandboxCanRun", () => {
  it("judges by mode bits for the sandbox's user, owner, group or others", () => {
    const closed = path.join(root, "home");
    const file = program(path.join(closed, "bin"), 0o755);
    chmodSync(closed, 0o700);
    expect(sandboxCanRun(file, me)).toBe(true);
    // Another user's 0700 folder: not entered, whatever capabilities docket has outside.
    expect(sandboxCanRun(file, stranger)).toBe(false);
    chmodSync(closed, 0o711);
    expect(sandboxCanRun(file, stranger)).toBe(true);
  });

  it("wants the file readable and executable, and follows links to the folders they name", () => {
    const file = program(path.join(root, "open"), 0o644);
    expect(sandboxCanRun(file, me)).toBe(false);
    const hidden = program(path.join(root, "closed"), 0o755);
    chmodSync(path.dirname(hidden), 0o700);
    const link = path.join(root, "open", "link");
    symlinkSync(hidden, link);
    expect(sandboxCanRun(link, me)).toBe(true);
    expect(sandboxCanRun(link, stranger)).toBe(false);
    expect(sandboxCanRun(path.join(root, "missing"), me)).toBe(false);
  });
});

describe("visibleNode", () => {
  it("keeps a binary the sandbox can run where it is", () => {
    const file = program(path.join(root, "bin"), 0o755);
    expect(visibleNode(file, { roots: [root] })).toEqual({ status: "ready", path: file });
  });

  it("places one the sandbox cannot run in a private folder, once, and runs it from there", () => {
    // Not executable for the sandbox's user: a copy of docket's own is made, mode 0500.
    const file = program(path.join(root, "bin"), 0o600);
    const first = visibleNode(file, { roots: [root] });
    if (first.status !== "ready") throw new Error(first.reason);
    expect(first.path).not.toBe(file);
    expect(path.dirname(first.path)).toBe(path.join(root, `docket-node-${me.uid}`));
    expect(statSync(path.dirname(first.path)).mode & 0o777).toBe(0o700);
    expect(sandboxCanRun(first.path, me)).toBe(true);
    const made = statSync(first.path).mtimeMs;
    expect(visibleNode(file, { roots: [root] })).toEqual(first);
    expect(statSync(first.path).mtimeMs).toBe(made);
  });

  it.skipIf(me.uid !== 0)("copies a binary behind another user's closed folder (root)", () => {
    const home = path.join(root, "home-of-nobody");
    const file = program(path.join(home, "bin"), 0o755);
    chmodSync(home, 0o700);
    // What docket met as root with a Node.js under /home/dev: root cannot enter it in a sandbox.
    chownSync(home, 65534, 65534);
    const placed = visibleNode(file, { roots: [root] });
    if (placed.status !== "ready") throw new Error(placed.reason);
    // A copy, never a link: writing the link would write docket's own binary.
    expect(statSync(placed.path).ino).not.toBe(statSync(file).ino);
    expect(readFileSync(placed.path, "utf8")).toBe(readFileSync(file, "utf8"));
    expect(sandboxCanRun(placed.path)).toBe(true);
  });

  it("replaces a hard link an earlier docket left with a copy", () => {
    const closed = path.join(root, "closed");
    const file = program(path.join(closed, "bin"), 0o755);
    chmodSync(closed, 0o600);
    const placed = visibleNode(file, { roots: [root] });
    if (placed.status !== "ready") throw new Error(placed.reason);
    chmodSync(closed, 0o700);
    rmSync(placed.path);
    linkSync(file, placed.path);
    chmodSync(closed, 0o600);
    expect(visibleNode(file, { roots: [root] })).toEqual(placed);
    chmodSync(closed, 0o700);
    expect(statSync(placed.path).ino).not.toBe(statSync(file).ino);
  });

  it("keeps neither the binary nor its copy inside a folder the command may write", () => {
    const workspace = path.join(root, "ws");
    const file = program(path.join(workspace, "bin"), 0o755);
    const inside = path.join(workspace, "tmp");
    mkdirSync(inside);
    const outside = path.join(root, "outside");
    mkdirSync(outside);
    const placed = visibleNode(file, { roots: [inside, outside], writable: [workspace] });
    if (placed.status !== "ready") throw new Error(placed.reason);
    expect(path.dirname(placed.path)).toBe(path.join(outside, `docket-node-${me.uid}`));
    const nowhere = visibleNode(file, { roots: [inside], writable: [workspace] });
    expect(nowhere.status).toBe("refused");
    if (nowhere.status === "refused") expect(nowhere.reason).toContain("may write");
  });

  it("refuses, naming the binary, when the private folder is not docket's alone", () => {
    const file = program(path.join(root, "bin"), 0o600);
    const squatted = path.join(root, `docket-node-${me.uid}`);
    mkdirSync(squatted);
    chmodSync(squatted, 0o777);
    const refused = visibleNode(file, { roots: [root] });
    expect(refused.status).toBe("refused");
    if (refused.status === "refused") {
      expect(refused.reason).toContain(file);
      expect(refused.reason).toContain("not a private folder");
    }
  });
});
