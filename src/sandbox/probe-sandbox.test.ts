import { describe, expect, it } from "vitest";
import { probeSandbox, probeSandboxSoon } from "./probe-sandbox.js";

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
});
