// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell syntax, not templates
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { docketOwnFiles } from "../protect/docket-own-files.js";
import { ownTail, startsUnknown, unknownAsGlob } from "./own-path-tail.js";

const own = docketOwnFiles({
  files: [{ path: "/home/ada/.config/docket/policy.yaml", what: "the user policy" }],
  directories: [{ path: "/home/ada/.config/docket/cache", what: "docket's cache" }],
  cwd: "/ws",
});

describe("own paths named from a folder docket cannot name", () => {
  it("matches words whose names are the last names of an own path, or go below an own folder", () => {
    for (const word of [
      "docket/policy.yaml",
      ".config/docket/policy.yaml",
      "docket/cache/code/x.bin",
      "./ada/.config/docket/cache",
      "*fig/docket/policy.yaml",
      "$XDG_CONFIG_HOME/docket/policy.yaml",
      "${CFG}/docket/cache/x",
    ]) {
      expect(ownTail(word, own)?.path, word).toBeDefined();
    }
  });

  it("leaves words that stop above an own path, have one name or only patterns", () => {
    for (const word of ["policy.yaml", "docket", ".config/docket", "*/*", "src/index.ts", "a/b"]) {
      expect(ownTail(word, own), word).toBeUndefined();
    }
  });

  it("turns unknown expansions into wildcards", () => {
    expect(unknownAsGlob("$(echo ~/.con)fig/docket/x")).toBe("*fig/docket/x");
    expect(unknownAsGlob("a/${B}/`c`/$d")).toBe("a/*/*/*");
    expect(startsUnknown("$X/a")).toBe(true);
    expect(startsUnknown("a/$X")).toBe(false);
  });

  it("matches any unknown prefix before a tail of an own path (property)", () => {
    const prefix = fc.constantFrom("$X/", "${XDG_CONFIG_HOME}/", "$(pwd)/", "`pwd`/", "$1/");
    const tail = fc.constantFrom(
      "docket/policy.yaml",
      ".config/docket/policy.yaml",
      "ada/.config/docket/cache",
      "docket/cache/a/b/c",
    );
    fc.assert(fc.property(prefix, tail, (p, t) => ownTail(`${p}${t}`, own) !== undefined));
  });
});
