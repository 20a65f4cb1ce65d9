import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../tool/define-tool.js";
import type { LintFinding } from "../tool/lint-tool.js";
import { setToolLintHandler } from "../tool/tool-lint-warnings.js";
import { createCheckpoint } from "./create-checkpoint.js";

// Tool names are unique per test: findings are reported once per tool name and process.
function vagueTool(name: string) {
  return defineTool({
    name,
    description: "Lookup.",
    input: z.object({ id: z.string() }),
    writes: false,
    handler: ({ id }) => id,
  });
}

const call = (name: string) => ({ id: "c1", name, arguments: '{"id":"a"}' });
const named = (seen: LintFinding[][]) => seen.map((findings) => findings[0]?.tool);

describe("tool lint at a checkpoint's first call", () => {
  const env = process.env.NODE_ENV;
  afterEach(() => {
    process.env.NODE_ENV = env;
    setToolLintHandler(null);
  });

  it("reports nothing when the tools are defined or the checkpoint created, then once at the first call", async () => {
    process.env.NODE_ENV = "development";
    const seen: LintFinding[][] = [];
    const tool = vagueTool("first_call_lookup");
    const checkpoint = createCheckpoint({
      tools: [tool],
      toolLint: (findings) => seen.push([...findings]),
    });
    expect(seen).toEqual([]);
    expect((await checkpoint.dispatch(call("first_call_lookup"))).status).toBe("ok");
    await checkpoint.dispatchBatch([call("first_call_lookup")]);
    expect(named(seen)).toEqual(["first_call_lookup"]);
    expect(seen[0]?.map((finding) => finding.code)).toEqual([
      "one_word_description",
      "no_when_to_use",
      "undescribed_parameter",
    ]);
    // A second checkpoint over the same tools (a harness makes one per run) says nothing again.
    const again = createCheckpoint({
      tools: [tool],
      toolLint: (findings) => seen.push([...findings]),
    });
    await again.dispatch(call("first_call_lookup"));
    expect(named(seen)).toEqual(["first_call_lookup"]);
  });

  it("is silenced by toolLint: false, whatever the process handler", async () => {
    process.env.NODE_ENV = "development";
    const seen: LintFinding[][] = [];
    setToolLintHandler((findings) => seen.push([...findings]));
    const checkpoint = createCheckpoint({ tools: [vagueTool("silenced_lookup")], toolLint: false });
    expect((await checkpoint.dispatch(call("silenced_lookup"))).status).toBe("ok");
    await checkpoint.preflight(call("silenced_lookup"));
    expect(seen).toEqual([]);
  });

  it("goes to the process handler by default, from a host's preflight too", async () => {
    process.env.NODE_ENV = "development";
    const seen: LintFinding[][] = [];
    setToolLintHandler((findings) => seen.push([...findings]));
    const checkpoint = createCheckpoint({ tools: [vagueTool("preflight_lookup")] });
    await checkpoint.preflight(call("preflight_lookup"));
    expect(named(seen)).toEqual(["preflight_lookup"]);
  });

  it("never stops a call: a handler that throws is ignored", async () => {
    process.env.NODE_ENV = "development";
    const checkpoint = createCheckpoint({
      tools: [vagueTool("throwing_lint_lookup")],
      toolLint: () => {
        throw new Error("the logger is down");
      },
    });
    const result = await checkpoint.dispatch(call("throwing_lint_lookup"));
    expect(result).toMatchObject({ status: "ok", output: "a" });
  });

  it("reports nothing under NODE_ENV test or production", async () => {
    const seen: LintFinding[][] = [];
    for (const mode of ["test", "production"]) {
      process.env.NODE_ENV = mode;
      const checkpoint = createCheckpoint({
        tools: [vagueTool(`quiet_${mode}_lookup`)],
        toolLint: (findings) => seen.push([...findings]),
      });
      await checkpoint.dispatch(call(`quiet_${mode}_lookup`));
    }
    expect(seen).toEqual([]);
  });
});
