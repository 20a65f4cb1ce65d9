import { describe, expect, it } from "vitest";
import { effectiveNetwork } from "./effective-network.js";
import { compileNetworkRules } from "./network-rules.js";

const managed = { name: "managed", deny: ["pastebin.com"], ask: ["*.github.com"] };

describe("effectiveNetwork", () => {
  it("keeps a setting no layer votes on, empty layers included", () => {
    expect(effectiveNetwork({})).toBe("none");
    expect(effectiveNetwork({ network: "all", networkLayers: [{ name: "user" }] })).toBe("all");
  });

  it("keeps none and loopback: nothing outside to restrict", () => {
    expect(effectiveNetwork({ network: "none", networkLayers: [managed] })).toBe("none");
    expect(effectiveNetwork({ network: "loopback", networkLayers: [managed] })).toBe("loopback");
  });

  it("counts the layers' votes in a filter: the strictest wins whichever layer holds it", () => {
    const network = effectiveNetwork({
      network: {
        rules: [{ name: "project", allow: ["pastebin.com", "api.github.com", "npmjs.org"] }],
        hosts: { "npmjs.org": "127.0.0.1" },
      },
      networkLayers: [managed],
    });
    if (typeof network === "string") throw new Error("expected a filter");
    expect(network.hosts).toEqual({ "npmjs.org": "127.0.0.1" });
    const decide = compileNetworkRules(network.rules);
    expect(decide("pastebin.com", 443)).toEqual({
      decision: "deny",
      rule: "managed:deny:pastebin.com",
    });
    expect(decide("api.github.com", 443).decision).toBe("ask");
    expect(decide("npmjs.org", 443).decision).toBe("allow");
    expect(decide("elsewhere.org", 443).decision).toBe("deny");
  });

  it("makes all a filter that allows every host the layers do not restrict", () => {
    const network = effectiveNetwork({ network: "all", networkLayers: [managed] });
    if (typeof network === "string") throw new Error("expected a filter");
    const decide = compileNetworkRules(network.rules);
    expect(decide("pastebin.com", 443).decision).toBe("deny");
    expect(decide("api.github.com", 22).decision).toBe("ask");
    expect(decide("example.org", 80)).toEqual({ decision: "allow", rule: "sandbox:allow:*" });
  });
});
