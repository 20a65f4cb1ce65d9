import { describe, expect, it } from "vitest";
import { lazyImport } from "./lazy-import.js";

describe("lazyImport", () => {
  it("loads once, on the first ask, and hands the same module to every later ask", async () => {
    let loads = 0;
    const mod = lazyImport(async () => ({ n: ++loads }));
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([mod(), mod()]);
    expect(a).toBe(b);
    expect(await mod()).toBe(a);
    expect(loads).toBe(1);
  });

  it("retries after a failed load instead of keeping the failure", async () => {
    let loads = 0;
    const mod = lazyImport(async () => {
      loads += 1;
      if (loads === 1) throw new Error("not yet");
      return { ok: true };
    });
    await expect(mod()).rejects.toThrow("not yet");
    expect(await mod()).toEqual({ ok: true });
    expect(loads).toBe(2);
  });
});
