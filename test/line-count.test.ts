import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { countCodeLines } from "./support/code-lines.js";
import { expectSupportDeskRun } from "./support/support-desk-run.js";

// Issue 40's target: the same support agent written with docket in no more lines than with the
// OpenAI Agents SDK. Both run here against one real chat-completions server on 127.0.0.1; the
// docket one also runs against the packed package (test/packed/line-count-agent.test.ts).
const examples = fileURLToPath(new URL("../examples/line-count/", import.meta.url));
const tsx = import.meta.resolve("tsx");
const biome = fileURLToPath(new URL("../node_modules/.bin/biome", import.meta.url));
const files = ["docket-agent.ts", "agents-sdk-agent.ts"];

describe.each([
  ["docket", "docket-agent.ts"],
  ["the OpenAI Agents SDK", "agents-sdk-agent.ts"],
])("the support agent with %s", (_library, file) => {
  it("reads the order, is refused the refund over the ceiling, runs the approved one, escalates, answers", async () => {
    await expectSupportDeskRun(["--import", tsx, join(examples, file)], {
      cwd: mkdtempSync(join(tmpdir(), "docket-line-count-")),
    });
  });
});

describe("issue 40's target", () => {
  it("docket's agent takes no more lines than the Agents SDK's (non-blank, non-comment, Biome-formatted)", async () => {
    // Counted as Biome prints them, so neither side can be packed onto fewer lines by hand.
    await promisify(execFile)(biome, ["format", ...files.map((file) => join(examples, file))]);
    const count = (file: string) => countCodeLines(readFileSync(join(examples, file), "utf8"));
    const docket = count("docket-agent.ts");
    const agentsSdk = count("agents-sdk-agent.ts");
    console.log(`line count: docket ${docket}, OpenAI Agents SDK ${agentsSdk}`);
    expect(docket).toBeLessThanOrEqual(agentsSdk);
  });
});
