import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runDocketTty } from "../support/run-docket-tty.js";
import { tempDir } from "./support/temp-dir.js";

describe("docket demo at a terminal", () => {
  it("asks, then says who approved, and the assistant's closing words follow the approval", async () => {
    const cwd = await tempDir("docket-demo-tty-");
    const { code, stdout } = await runDocketTty(
      ["demo", "--store", `sqlite:${join(cwd, "docket.db")}`],
      { cwd, input: "a\n" },
    );
    expect(code, stdout).toBe(0);
    expect(stdout).toContain("[a]pprove once");
    expect(stdout).toMatch(
      / {2}· call_partial_refund: asked role:lead for approval\n {2}· call_partial_refund: approved by lead\n/,
    );
    expect(stdout).toContain("I have refunded 200 USD for the damage");
    expect(stdout).not.toContain("No refund has been issued");
  });
});
