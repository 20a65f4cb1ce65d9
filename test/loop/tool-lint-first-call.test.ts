import { describe, expect, it } from "vitest";
import { runTsx } from "./support/run-child.js";

const FIXTURE = "test/loop/fixtures/lint-first-call.ts";
const development = { env: { NODE_ENV: "development" } };
const count = (text: string, word: string) => text.split(word).length - 1;

describe("tool lint in a developer's own process", () => {
  it("prints nothing at import, then one warning per tool at the first call, not per run", async () => {
    const { code, stderr } = await runTsx(FIXTURE, [], development);
    expect(code, stderr).toBe(0);
    const defined = stderr.indexOf("DEFINED");
    expect(defined).toBeGreaterThanOrEqual(0);
    expect(stderr.slice(0, defined)).not.toContain("DocketToolLint");
    expect(count(stderr, "DocketToolLint")).toBe(1);
    expect(stderr).toMatch(/tool lookup could be clearer[\s\S]*one_word_description/);
    expect(stderr.indexOf("DocketToolLint")).toBeLessThan(stderr.indexOf("DONE"));
  });

  it("prints none with createHarness({ toolLint: false })", async () => {
    const { code, stderr } = await runTsx(FIXTURE, ["silenced"], development);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain("DONE");
    expect(stderr).not.toContain("DocketToolLint");
  });
});
