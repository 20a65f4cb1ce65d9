// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the syntax under test.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { interpolateEnv } from "./interpolate-env.js";

const at = (value: unknown, env: NodeJS.ProcessEnv) =>
  interpolateEnv(value, { env, file: "docket.yaml", lines: new Map([["a.b", 7]]) });

describe("interpolateEnv", () => {
  it("fills ${VAR}, ${VAR:-default} and $${, in nested strings only", () => {
    expect(at({ a: { b: "x-${A}-${B:-dflt}-$${C}" }, n: 3, list: ["${A}"] }, { A: "1" })).toEqual({
      a: { b: "x-1-dflt-${C}" },
      n: 3,
      list: ["1"],
    });
  });

  it("names the file and line of an unset variable, and of a ${ that is no reference", () => {
    expect(() => at({ a: { b: "${NOPE}" } }, {})).toThrow(
      "docket.yaml:7: a.b names ${NOPE}, which is not set; set it, or write a default after :- inside the braces",
    );
    expect(() => at({ a: { b: "${not valid}" } }, {})).toThrow(
      /docket\.yaml:7: a\.b: a \$\{ that is not/,
    );
  });

  it("leaves text without ${ unchanged, and never re-reads a value as a reference", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (text, value) => {
        fc.pre(!text.includes("${"));
        expect(at({ t: text }, {})).toEqual({ t: text });
        // A variable whose value looks like a reference is taken as it is.
        expect(at({ t: "${V}" }, { V: `\${${value}}` })).toEqual({ t: `\${${value}}` });
      }),
    );
  });
});
