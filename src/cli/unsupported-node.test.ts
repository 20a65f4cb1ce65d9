import { describe, expect, it } from "vitest";
import { unsupportedNodeReason } from "./unsupported-node.js";

describe("unsupportedNodeReason", () => {
  it("names every Node docket does not run on, and none it does", () => {
    for (const version of ["18.20.4", "20.20.2", "22.15.1", "22.0.0", "23.3.0"]) {
      expect(unsupportedNodeReason(version)).toBe(
        `needs Node 22.16 or later (24 or 26); this is Node ${version}`,
      );
    }
    for (const version of ["22.16.0", "22.19.1", "23.4.0", "24.21.0", "26.0.0"]) {
      expect(unsupportedNodeReason(version)).toBeUndefined();
    }
  });
});
