import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withDocketIgnored } from "./docket-ignore.js";

describe("withDocketIgnored", () => {
  it("creates the file, appends once, and leaves a file that already ignores .docket", () => {
    expect(withDocketIgnored(undefined)).toBe(
      "# docket's local state: the store, sessions, the audit trail\n.docket/\n",
    );
    expect(withDocketIgnored("node_modules")).toBe(
      "node_modules\n\n# docket's local state: the store, sessions, the audit trail\n.docket/\n",
    );
    for (const existing of [".docket", "/.docket/\n", "dist\n  .docket/  \r\nx", "!.docket/"]) {
      expect(withDocketIgnored(existing), existing).toBeUndefined();
    }
    // A longer name is another folder.
    expect(withDocketIgnored(".docket-old/\n")).toContain("\n.docket/\n");
  });

  it("is idempotent: applying it to its own result changes nothing, whatever was there", () => {
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: undefined }), (text) => {
        const once = withDocketIgnored(text) ?? text;
        expect(withDocketIgnored(once)).toBeUndefined();
        if (text !== undefined) expect(once?.startsWith(text)).toBe(true);
      }),
    );
  });
});
