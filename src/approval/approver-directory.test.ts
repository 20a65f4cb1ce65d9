import { describe, expect, it } from "vitest";
import {
  authenticate,
  createApproverDirectory,
  hashToken,
  mayDecide,
} from "./approver-directory.js";

const directory = createApproverDirectory(
  {
    alice: { roles: ["lead"] },
    bob: { roles: ["lead"], token_env: "BOB_TOKEN" },
    carol: { roles: ["support"], token_sha256: hashToken("carol-token") },
  },
  { BOB_TOKEN: "bob-token-of-22-chars-or-more" },
);

describe("approver directory", () => {
  it("keeps only token hashes", () => {
    expect(directory.entries.get("bob")?.tokenSha256).toBe(
      hashToken("bob-token-of-22-chars-or-more"),
    );
    expect(JSON.stringify([...directory.entries])).not.toContain("bob-token-of-22-chars-or-more");
  });

  it("authenticates by token, and by name only for token-less approvers (locally asserted)", () => {
    expect(authenticate(directory, { token: "bob-token-of-22-chars-or-more" })).toEqual({
      status: "authenticated",
      name: "bob",
      locallyAsserted: false,
    });
    expect(authenticate(directory, { name: "carol", token: "carol-token" })).toMatchObject({
      status: "authenticated",
      name: "carol",
    });
    expect(authenticate(directory, { name: "alice" })).toEqual({
      status: "authenticated",
      name: "alice",
      locallyAsserted: true,
    });
    expect(authenticate(directory, { name: "bob" })).toMatchObject({
      status: "rejected",
      message: /has a token/,
    });
    expect(authenticate(directory, { name: "bob", token: "carol-token" })).toMatchObject({
      status: "rejected",
    });
    expect(authenticate(directory, { token: "nope" })).toMatchObject({ status: "rejected" });
    expect(authenticate(directory, { name: "mallory" })).toMatchObject({ status: "rejected" });
    expect(authenticate(directory, {})).toMatchObject({
      status: "rejected",
      message: /never anonymous/,
    });
  });

  it("matches principals and roles", () => {
    expect(mayDecide(directory, "alice", ["role:lead"])).toBe(true);
    expect(mayDecide(directory, "carol", ["role:lead"])).toBe(false);
    expect(mayDecide(directory, "carol", ["role:lead", "carol"])).toBe(true);
    expect(mayDecide(directory, "nobody", ["role:lead"])).toBe(false);
  });

  it("refuses a token_env that is not set and a malformed hash", () => {
    expect(() => createApproverDirectory({ x: { token_env: "MISSING" } }, {})).toThrowError(
      /MISSING/,
    );
    expect(() => createApproverDirectory({ x: { token_sha256: "abc" } }, {})).toThrowError(
      /64 hex/,
    );
  });
});
