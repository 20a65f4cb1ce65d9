import { describe, expect, it } from "vitest";
import { createApproverDirectory } from "../../approval/approver-directory.js";
import { approverDeclaredWhere } from "./approver-declared-where.js";

describe("approverDeclaredWhere", () => {
  const directory = createApproverDirectory({ bob: { roles: ["lead"] }, carol: {} }, {});

  it("names the file the CLI reads, who is declared there, and the lines to add", () => {
    const text = approverDeclaredWhere("alice", directory, {
      projectFile: "/srv/shop/docket.yaml",
    });
    expect(text.split("\n")).toEqual([
      "The CLI reads approvers from approvers: in /srv/shop/docket.yaml (bob, carol).",
      "Approvers given only in your program's code (createApproverDirectory) are not seen by the CLI: declare alice in /srv/shop/docket.yaml as well, for example:",
      "  approvers:",
      "    alice:",
      "      roles: [lead]",
    ]);
  });

  it("says when no docket.yaml was found, and quotes a name YAML would misread", () => {
    const text = approverDeclaredWhere("a: b", createApproverDirectory({}, {}), {});
    expect(text).toContain("No docket.yaml was found in this folder or above it");
    expect(text).toContain("the project's docket.yaml (docket init makes one)");
    expect(text).toContain('    "a: b":');
  });

  it("names the user's config too when it declares approvers", () => {
    const text = approverDeclaredWhere("alice", createApproverDirectory({}, {}), {
      projectFile: "/p/docket.yaml",
      userFile: "/home/u/.config/docket/config.yaml",
    });
    expect(text).toContain(
      "approvers: in /p/docket.yaml and /home/u/.config/docket/config.yaml (none declared).",
    );
  });
});
