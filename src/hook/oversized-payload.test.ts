import { describe, expect, it } from "vitest";
import { hostAdapters } from "./host-registry.js";
import { AFTER_EVENTS } from "./oversized-payload.js";

describe("AFTER_EVENTS", () => {
  it("is every host's event that reports a call it ran, and nothing else", () => {
    const after = hostAdapters().flatMap((adapter) =>
      Object.entries(adapter.events)
        .filter(([, kind]) => kind === "after" || kind === "after-failure")
        .map(([name]) => name),
    );
    expect([...AFTER_EVENTS].sort()).toEqual([...new Set(after)].sort());
  });
});
