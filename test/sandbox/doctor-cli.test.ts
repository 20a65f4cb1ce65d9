import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runDocketIn } from "../loop/support/run-child.js";
import { tempDir } from "../loop/support/temp-dir.js";

describe("docket doctor", () => {
  it("reports the probe and the mode as JSON, and fails when required cannot be met", async () => {
    const cwd = await tempDir();
    await writeFile(
      join(cwd, "docket.yaml"),
      "sandbox: { mode: required, bwrap: /nonexistent/bwrap }\n",
    );
    const failed = await runDocketIn(cwd, ["doctor", "--json"]);
    expect(failed.code).toBe(1);
    const report = JSON.parse(failed.stdout.trim()).sandbox;
    expect(report).toMatchObject({
      mode: "required",
      confinement: "refused",
      probe: { status: "unavailable", kind: "missing" },
    });
    expect(report.hide).toContain(join(cwd, "docket.yaml"));

    const alias = await runDocketIn(cwd, ["sandbox", "check"]);
    expect(alias.stdout).toMatch(/sandbox\.mode\s+required/);
    expect(alias.stdout).toMatch(/with mode required, run_command is refused/);
  }, 60_000);

  it("names a bad mode with the file and line", async () => {
    const cwd = await tempDir();
    await writeFile(join(cwd, "docket.yaml"), "principal: bot\nsandbox:\n  mode: sometimes\n");
    const bad = await runDocketIn(cwd, ["doctor"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/docket\.yaml:3: sandbox\.mode/);
  }, 60_000);
});
