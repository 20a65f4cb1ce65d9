import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pinAncestors } from "./pin-ancestors.js";

describe("pinAncestors", () => {
  it("pins every folder between the writable root and a hidden path, parents first", () => {
    expect(pinAncestors(["/h/.config/docket"], ["/h"])).toEqual(["/h/.config"]);
    expect(pinAncestors(["/h/a/b/c/key"], ["/h"])).toEqual(["/h/a", "/h/a/b", "/h/a/b/c"]);
  });

  it("pins nothing for a child of the root, a path outside every root, or the root itself", () => {
    expect(pinAncestors(["/ws/.docket", "/ws", "/etc/docket", "/wsx/a/b"], ["/ws"])).toEqual([]);
  });

  it("starts at the outermost root holding the path (a workspace inside a writable home)", () => {
    expect(pinAncestors(["/h/ws/.config/docket"], ["/h/ws", "/h"])).toEqual([
      "/h/ws",
      "/h/ws/.config",
    ]);
  });

  it("skips a path below another hidden one, and shares common parents", () => {
    expect(
      pinAncestors(
        ["/h/.config/docket", "/h/.config/docket/keys/audit.key", "/h/.config/x"],
        ["/h"],
      ),
    ).toEqual(["/h/.config"]);
  });

  it("only ever pins folders strictly inside a root and strictly above a path (property)", () => {
    const segment = fc.constantFrom("a", "b", ".config", "docket");
    const file = fc
      .array(segment, { minLength: 1, maxLength: 5 })
      .map((parts) => `/${parts.join("/")}`);
    fc.assert(
      fc.property(
        fc.array(file, { maxLength: 6 }),
        fc.array(file, { minLength: 1, maxLength: 3 }),
        (paths, roots) => {
          for (const dir of pinAncestors(paths, roots)) {
            expect(roots.some((root) => dir.startsWith(`${root}/`))).toBe(true);
            expect(paths.some((entry) => entry.startsWith(`${dir}/`))).toBe(true);
          }
          // Every path inside a root has its parent pinned unless the parent is a root or the path
          // lies below another path.
          for (const entry of paths) {
            const parent = entry.slice(0, entry.lastIndexOf("/"));
            const below = paths.some((other) => entry.startsWith(`${other}/`));
            const inRoot = roots.some((root) => entry.startsWith(`${root}/`));
            const parentIsRoot = !roots.some((root) => parent.startsWith(`${root}/`));
            if (inRoot && !below && !parentIsRoot)
              expect(pinAncestors(paths, roots)).toContain(parent);
          }
        },
      ),
    );
  });
});
