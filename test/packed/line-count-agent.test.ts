import { copyFile, mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, it } from "vitest";
import { type PackedProject, packedDocket } from "../support/packed-docket.js";
import { expectSupportDeskRun } from "../support/support-desk-run.js";

// Issue 40's agent with nothing read from docket's sources: examples/line-count/docket-agent.ts
// copied into a project where the packed tarball is installed (with its optional peers, for
// @ai-sdk/openai-compatible), run by Node itself (type stripping), against a real local server.
const agent = fileURLToPath(new URL("../../examples/line-count/docket-agent.ts", import.meta.url));

let full: PackedProject;
beforeAll(async () => {
  full = await packedDocket("full");
}, 900_000);

describe("the line-count agent on the installed package", () => {
  it("reads, is refused over the ceiling, runs the refund alice approves, escalates, answers", async () => {
    const work = await mkdtemp(join(full.dir, "line-count-"));
    await copyFile(agent, join(work, "agent.ts"));
    await expectSupportDeskRun(["agent.ts"], { cwd: work });
  });
});
