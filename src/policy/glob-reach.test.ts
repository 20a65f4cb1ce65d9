import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { globAlternatives, globReach } from "./glob-reach.js";

const OWN = "/h/.config/docket";
const DEEP = ["cache", "code", "abc.bin"];

describe("globReach", () => {
  it("tells a pattern at, inside or above a folder", () => {
    expect(globReach("/h/.config/dock?t", OWN, "directory")).toEqual({ type: "at" });
    expect(globReach("/h/.config/dock?t/cache/code/*.bin", OWN, "directory")).toEqual({
      type: "inside",
    });
    expect(globReach("/h/.conf*", OWN, "directory")).toEqual({ type: "above", depth: 3 });
    expect(globReach("/h/**/x.bin", OWN, "directory")).toEqual({ type: "inside" });
    expect(globReach("/h/.config/[dx]ocket/a", OWN, "directory")).toEqual({ type: "inside" });
    expect(globReach("/h/.config/gi?/*", OWN, "directory")).toBeUndefined();
    expect(globReach("/h/.config/docket-*/x", OWN, "directory")).toBeUndefined();
  });

  it("follows bash without dotglob when asked: a wildcard never starts a dot name", () => {
    const bash = { dot: false };
    expect(globReach("/h/*/docket/x", OWN, "directory", bash)).toBeUndefined();
    expect(globReach("/h/**/x", OWN, "directory", bash)).toBeUndefined();
    expect(globReach("/h/.c*/dock?t/x", OWN, "directory", bash)).toEqual({ type: "inside" });
    expect(globReach("/h/*/docket/x", OWN, "directory")).toEqual({ type: "inside" });
  });

  it("finds nothing below a file", () => {
    expect(globReach("/ws/*", "/ws/docket.yaml", "file")).toEqual({ type: "at" });
    expect(globReach("/ws/*/x", "/ws/docket.yaml", "file")).toBeUndefined();
  });

  it("expands braces, even across folders, and gives up past its bound", () => {
    expect(globAlternatives("/h/{a/b,c}/x")).toEqual(["/h/a/b/x", "/h/c/x"]);
    expect(globAlternatives(`/h/${"{a,b}".repeat(12)}`)).toBeUndefined();
  });

  // A deep protected path with some segments replaced by wildcards is always caught.
  it("reaches every pattern built from a protected path (property)", () => {
    const wild = fc.constantFrom("*", "?", "[", "**", "{", "");
    fc.assert(
      fc.property(
        fc.array(wild, { minLength: 6, maxLength: 6 }),
        fc.integer({ min: 1, max: 6 }),
        (kinds, keep) => {
          const names = [...OWN.split("/").slice(1), ...DEEP].slice(0, keep + 1);
          const parts = names.map((name, k) => disguise(name, kinds[k] as string));
          const reach = globReach(`/${parts.join("/")}`, OWN, "directory");
          if (names.length >= 3) return reach !== undefined && reach.type !== "above";
          return reach !== undefined;
        },
      ),
      { numRuns: 300 },
    );
  });

  // Whatever the pattern, a path it matches (by picomatch) inside the folder is reported.
  it("never misses a path picomatch matches (property)", () => {
    const name = fc.constantFrom(
      "h",
      ".config",
      "docket",
      "cache",
      "code",
      "abc.bin",
      "x",
      "docket2",
    );
    const part = fc.oneof(name, fc.constantFrom("*", "?ocket", "d*", "[cd]ache", "**", ".c*"));
    fc.assert(
      fc.property(
        fc.array(part, { minLength: 1, maxLength: 6 }),
        fc.array(name, { maxLength: 3 }),
        (pat, rest) => {
          const pattern = `/${pat.join("/")}`;
          const target = [OWN, ...rest].join("/");
          if (!picomatch(pattern, { dot: true, nocase: true })(target)) return true;
          const reach = globReach(pattern, OWN, "directory");
          return reach !== undefined && reach.type !== "above";
        },
      ),
      { numRuns: 500 },
    );
  });

  it("does not reach from patterns that cannot match (property)", () => {
    const other = fc.constantFrom("git", "nvim", "docketx", "cache2", "d?ck", "[xy]*");
    fc.assert(
      fc.property(other, fc.constantFrom("*", "x", "**/y"), (third, rest) => {
        return globReach(`/h/.config/${third}/${rest}`, OWN, "directory") === undefined;
      }),
    );
  });
});

function disguise(name: string, kind: string): string {
  if (kind === "*") return `${name.slice(0, 1)}*`;
  if (kind === "?") return `?${name.slice(1)}`;
  if (kind === "[") return `[${name.slice(0, 1)}x]${name.slice(1)}`;
  if (kind === "**") return "**";
  if (kind === "{") return `{zz,${name}}`;
  return name;
}
