import { describe, expect, it } from "vitest";
import {
  type ProbeMemory,
  probeSandbox,
  probeSandboxSoon,
  type SandboxProbe,
} from "./probe-sandbox.js";

describe("probeSandboxSoon", () => {
  it("answers as probeSandbox does: a missing binary, one that cannot sandbox, the real one", async () => {
    for (const bwrap of ["/nonexistent/bwrap", "/bin/false", "bwrap"]) {
      const soon = await probeSandboxSoon(bwrap);
      // A fresh synchronous probe, not the cached answer of the asynchronous one.
      expect(probeSandbox(bwrap, { fresh: true }), bwrap).toEqual(soon);
    }
    expect((await probeSandboxSoon("/nonexistent/bwrap")).status).toBe("unavailable");
    expect(await probeSandboxSoon("/bin/false")).toMatchObject({ kind: "forbidden" });
  });

  it("without the version, tells missing, forbidden and available apart the same way", async () => {
    // Paths of their own: the cache holds one answer per binary.
    for (const bwrap of ["/nonexistent/third-bwrap", "/usr/bin/false", "/usr/bin/bwrap"]) {
      const soon = await probeSandboxSoon(bwrap, { version: false });
      const full = probeSandbox(bwrap, { fresh: true });
      expect(soon, bwrap).toEqual(full.status === "available" ? { ...full, version: "" } : full);
    }
  });

  it("leaves its answer in the cache probeSandbox reads", async () => {
    const soon = await probeSandboxSoon("/nonexistent/other-bwrap");
    expect(probeSandbox("/nonexistent/other-bwrap")).toBe(soon);
  });

  it("takes only a working sandbox from a memory: a kept 'unavailable' is probed again", async () => {
    const kept: SandboxProbe[] = [];
    const memory = (held: SandboxProbe): ProbeMemory => ({
      open: () => ({ kept: held, keep: (probe) => void kept.push(probe) }),
    });
    // /bin/true starts anything it is given: a working "sandbox" for the probe.
    const stale: SandboxProbe = {
      status: "unavailable",
      bwrapPath: "/bin/true",
      kind: "forbidden",
      reason: "a namespace limit reached for a moment",
    };
    const fresh = await probeSandboxSoon("/bin/true", { version: false, memory: memory(stale) });
    expect(fresh.status).toBe("available");
    expect(kept).toEqual([fresh]);
    // A kept "available" is taken as it is, and nothing is probed or kept again.
    const held: SandboxProbe = { status: "available", bwrapPath: "/nonexistent/kept", version: "" };
    expect(
      await probeSandboxSoon("/nonexistent/kept", { version: false, memory: memory(held) }),
    ).toBe(held);
    expect(kept).toHaveLength(1);
  });
});
