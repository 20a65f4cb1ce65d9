import { describe, expect, it } from "vitest";
import { simpleAnalysis } from "../../test/policy/support/simple-analysis.js";
import { docketOwnFiles } from "../protect/docket-own-files.js";
import { unpacksAbove } from "./extraction-dirs.js";
import { folderBases } from "./folder-bases.js";

const analysis = simpleAnalysis;
const workspace = "/mono/pkg";
const own = docketOwnFiles({
  directories: [
    { path: "/mono/pkg/.docket", what: "docket's state folder" },
    { path: "/home/ada/.config/docket", what: "docket's user config folder" },
  ],
  cwd: workspace,
});
const unpacked = (...argvs: string[][]) => {
  const script = analysis(...argvs);
  return unpacksAbove(script, folderBases(script, "/home/ada").dirs, own, { workspace })?.path;
};

describe("archives unpacked above docket's files", () => {
  it("refuses one unpacked in the home folder, an unknown folder or with absolute names", () => {
    expect(unpacked(["cd"], ["tar", "-xf", "a.tar"])).toBe("/home/ada/.config/docket");
    expect(unpacked(["git", "-C", "/home", "checkout", "--", "."])).toBeDefined();
    expect(unpacked(["cd", "-"], ["unzip", "a.zip"])).toBeDefined();
    expect(unpacked(["tar", "-xPf", "a.tar"])).toBeDefined();
    expect(unpacked(["cpio", "-idm"])).toBeDefined();
  });

  it("leaves the workspace, its parent (whose only own files are the workspace's) and others", () => {
    expect(unpacked(["tar", "-xf", "a.tar"])).toBeUndefined();
    expect(unpacked(["cd", ".."], ["git", "checkout", "main"])).toBeUndefined();
    expect(unpacked(["cd", "/tmp"], ["unzip", "a.zip"])).toBeUndefined();
    expect(unpacked(["cd"], ["tar", "-czf", "out.tgz", "dist"])).toBeUndefined();
    expect(unpacked(["cd"], ["git", "status"])).toBeUndefined();
  });
});
