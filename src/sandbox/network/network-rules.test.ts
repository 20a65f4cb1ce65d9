import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileNetworkRules } from "./network-rules.js";

describe("compileNetworkRules", () => {
  const decide = compileNetworkRules([
    { name: "managed", deny: ["evil.github.com"] },
    { name: "project", allow: ["registry.npmjs.org", "*.github.com"], ask: ["api.github.com:443"] },
  ]);

  it("lets the strictest matching vote win across layers, and denies what no rule names", () => {
    expect(decide("registry.npmjs.org", 443)).toEqual({
      decision: "allow",
      rule: "project:allow:registry.npmjs.org",
    });
    expect(decide("api.github.com", 443)).toEqual({
      decision: "ask",
      rule: "project:ask:api.github.com:443",
    });
    expect(decide("api.github.com", 22)).toEqual({
      decision: "allow",
      rule: "project:allow:*.github.com",
    });
    expect(decide("evil.github.com", 443)).toEqual({
      decision: "deny",
      rule: "managed:deny:evil.github.com",
    });
    expect(decide("github.com", 443)).toEqual({ decision: "deny", rule: "no_rule" });
    expect(decide("evilgithub.com", 443)).toEqual({ decision: "deny", rule: "no_rule" });
  });

  it("normalises names as URLs are (case, trailing dot, numeric IPv4) and refuses bad ports", () => {
    expect(decide("Registry.NPMJS.org.", 443).decision).toBe("allow");
    const ip = compileNetworkRules([{ name: "project", allow: ["127.0.0.1"] }]);
    expect(ip("2130706433", 80).decision).toBe("allow");
    expect(ip("::ffff:127.0.0.1", 80).decision).toBe("allow");
    expect(decide("registry.npmjs.org", 0).decision).toBe("deny");
    expect(decide("registry.npmjs.org", 70_000).decision).toBe("deny");
    expect(decide("a b/c", 443).decision).toBe("deny");
  });

  it("names the layer and pattern of a bad rule", () => {
    expect(() => compileNetworkRules([{ name: "project", allow: ["http://x.org/"] }])).toThrow(
      /network\.allow \(project\): bad host pattern/,
    );
  });

  it("never allows when any layer denies, and never decides more loosely than a single layer", () => {
    const name = fc.constantFrom("a.example", "b.example", "x.a.example");
    const list = fc.array(fc.constantFrom("a.example", "*.a.example", "b.example", "*"), {
      maxLength: 3,
    });
    const layer = fc.record({ allow: list, ask: list, deny: list });
    const rank = { allow: 0, ask: 1, deny: 2 };
    fc.assert(
      fc.property(fc.array(layer, { minLength: 1, maxLength: 3 }), name, (layers, host) => {
        const named = layers.map((rules, index) => ({ name: `l${index}`, ...rules }));
        const all = compileNetworkRules(named)(host, 443);
        for (const one of named) {
          const alone = compileNetworkRules([one])(host, 443);
          if (alone.rule !== "no_rule")
            expect(rank[all.decision]).toBeGreaterThanOrEqual(rank[alone.decision]);
        }
        if (named.every((one) => compileNetworkRules([one])(host, 443).rule === "no_rule")) {
          expect(all).toEqual({ decision: "deny", rule: "no_rule" });
        }
      }),
    );
  });
});
