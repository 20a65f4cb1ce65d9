import { describe, expect, it } from "vitest";
import { policyLayerFrom } from "../config/policy-section.js";
import { compileLayers } from "./compile-layers.js";
import type { PolicyLayer } from "./policy-rule.js";

const home = "/home/ada";
const source = { file: "docket.yaml", lines: new Map([["rules[1].path", 7]]) };
const section = () => ({
  defaults: { reads: "allow", writes: "ask" },
  rules: [
    { id: "no-env", decision: "deny", tool: "read_file", path: "**/.env" },
    { id: "src", decision: "allow", tool: "write_file", path: "src/**" },
  ],
});

/** What a compile decided, without the matchers' closures. */
function shape(policy: ReturnType<typeof compileLayers>) {
  return {
    defaults: policy.defaults,
    rules: policy.rules.map(({ id, layer, order, decision, tools, paths }) => ({
      id,
      layer,
      order,
      decision,
      tools: tools.map((tool) => tool.text),
      paths: paths?.map((pattern) => pattern.text),
    })),
  };
}

describe("compileLayers keeps a loaded layer's compile for the engine", () => {
  it("takes the loader's compile once, and it equals a fresh compile", () => {
    const layer = policyLayerFrom(section(), { name: "project", source, home });
    const taken = compileLayers([layer], { home });
    const again = compileLayers([layer], { home });
    // Taken: the very rules the loader compiled; then gone: the next compile is fresh.
    expect(taken.rules[0]).not.toBe(again.rules[0]);
    const fresh = compileLayers([{ name: "project", ...section() } as PolicyLayer], { home });
    expect(shape(taken)).toEqual(shape(fresh));
    expect(shape(again)).toEqual(shape(fresh));
    expect(
      taken.rules[0]?.paths?.[0]?.test({ input: ".env", absolute: "/w/.env", relative: ".env" }),
    ).toBe(true);
  });

  it("freezes the loaded layer, so what was checked is what the engine runs", () => {
    const layer = policyLayerFrom(section(), { name: "project", source, home });
    expect(() => {
      (layer.rules as unknown as [{ decision: string }])[0].decision = "allow";
    }).toThrow(TypeError);
    expect(Object.isFrozen(layer.defaults)).toBe(true);
  });

  it("compiles again for another home or another rank", () => {
    const layer = policyLayerFrom(section(), { name: "project", source, home });
    const first = compileLayers([layer], { home, keep: true });
    const otherHome = compileLayers([layer], { home: "/home/bob" });
    expect(otherHome.rules[0]).not.toBe(first.rules[0]);
    const kept = policyLayerFrom(section(), { name: "team", source, home });
    const alone = compileLayers([kept], { home, keep: true });
    // Beside another unknown layer "team" ranks differently: its rules are compiled afresh.
    const ranked = compileLayers([{ name: "extra", rules: [] }, kept], { home });
    expect(ranked.rules[0]).not.toBe(alone.rules[0]);
    expect(ranked.rules[0]?.order).not.toBe(alone.rules[0]?.order);
  });

  it("still refuses a rule id that another layer already used", () => {
    const user = policyLayerFrom(section(), { name: "user", source, home });
    const project = policyLayerFrom(section(), { name: "project", source, home });
    expect(() => compileLayers([user, project], { home })).toThrow(/duplicate rule id "no-env"/);
  });

  it("keeps no layer that is not deeply frozen plain data", () => {
    const open = { name: "project", ...section() } as PolicyLayer;
    const first = compileLayers([open], { home, keep: true });
    expect(compileLayers([open], { home }).rules[0]).not.toBe(first.rules[0]);
    let reads = 0;
    const rule = Object.freeze({
      decision: "deny",
      tool: "read_file",
      // A getter on frozen data can answer differently each time: never kept.
      get path() {
        reads++;
        return reads > 1 ? "nothing" : "**/.env";
      },
    });
    const tricky = Object.freeze({ name: "project", rules: Object.freeze([rule]) }) as PolicyLayer;
    const once = compileLayers([tricky], { home, keep: true });
    const twice = compileLayers([tricky], { home });
    expect(twice.rules[0]).not.toBe(once.rules[0]);
    expect(twice.rules[0]?.paths?.[0]?.text).toBe("nothing");
  });

  it("reports a bad pattern at load with its file and line, and keeps nothing", () => {
    const bad = {
      rules: [
        { decision: "deny", tool: "read_file", path: "a" },
        { decision: "deny", tool: "read_file", path: "a[b" },
      ],
    };
    expect(() => policyLayerFrom(bad, { name: "project", source, home })).toThrow(
      /docket\.yaml:7: .*bad glob "a\[b"/,
    );
  });
});
