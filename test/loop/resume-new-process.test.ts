import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { createHarness } from "../../src/loop/create-harness.js";
import { toPrompt } from "../../src/loop/to-prompt.js";
import { loadModelScript } from "../../src/model/model-script.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { openStore } from "../../src/store/open-store.js";
import { runDocketTty } from "../support/run-docket-tty.js";
import { DESK_CONFIG_YAML, DESK_POLICY, deskDirectory, deskTools } from "./support/desk-tools.js";
import { call, turn, writeScriptFile } from "./support/model-script.js";
import { resumeInChild } from "./support/resume-in-child.js";
import { tempStore } from "./support/temp-store.js";
import { expectWholeBatches } from "./support/whole-batches.js";

const lookup = (id: string, order: string) => call(id, "get_order", { order_id: order });

describe("resuming a session in a new process", () => {
  it("sends exactly the requests an uninterrupted run sends", async () => {
    const { store, dir, file } = await tempStore();
    const scriptFile = await writeScriptFile(dir, [
      turn("Looking up the first order.", lookup("c1", "SU-1")),
      turn("And the other two.", lookup("c2", "SU-2"), lookup("c3", "SU-404")),
      turn("SU-1 and SU-2 were delivered; SU-404 does not exist."),
    ]);
    const script = await loadModelScript(scriptFile);

    // The reference: the same script, uninterrupted, in a store of its own.
    const reference = await tempStore();
    const whole = createScriptedModel(script);
    const wholeRun = await createHarness({
      model: whole,
      tools: deskTools().tools,
      store: reference.store,
    }).run("Where are my orders?");
    expect(wholeRun.status).toBe("completed");
    const expected = whole.requests.map((r) => r.prompt);
    expect(expected).toHaveLength(3);

    // Cancelled once the first batch is done, so the session stops between turns.
    const controller = new AbortController();
    const first = createScriptedModel(script);
    const desk = deskTools();
    const stopped = await createHarness({ model: first, tools: desk.tools, store }).run(
      "Where are my orders?",
      {
        signal: controller.signal,
        onEvent: (e) => {
          if (e.type === "tool_result" && e.result.callId === "c1") controller.abort();
        },
      },
    );
    expect(stopped.status).toBe("cancelled");
    expect(desk.runs).toEqual(["get_order:c1"]);
    expect(first.requests.map((r) => r.prompt)).toEqual(expected.slice(0, 1));
    await store.close();

    const child = await resumeInChild(file, scriptFile, stopped.sessionId);
    expect(child.status).toBe("completed");
    expect(child.text).toBe("SU-1 and SU-2 were delivered; SU-404 does not exist.");
    // The resumed process sends turn 2 and 3 byte for byte as the uninterrupted run did.
    expect(child.prompts).toEqual(expected.slice(1));
    expect(child.runs).toEqual(["get_order:c2", "get_order:c3"]);
  });

  it("resumes after an approval decided with the CLI in another process", async () => {
    const { store, dir, file, url } = await tempStore();
    const scriptFile = await writeScriptFile(dir, [
      turn(
        "Refunding the damaged desk.",
        call("r1", "issue_refund", { order_id: "SU-1", amount: 200 }),
      ),
      turn("The refund of 200 USD is on its way."),
    ]);
    const config = join(dir, "approvers.yaml");
    await writeFile(config, DESK_CONFIG_YAML);
    const desk = deskTools();
    const suspended = await createHarness({
      model: createScriptedModel(await loadModelScript(scriptFile)),
      tools: desk.tools,
      policy: DESK_POLICY,
      store,
      approvals: createDurableApprover({ store, directory: deskDirectory(), mode: "suspend" }),
    }).run("Refund my desk, it arrived cracked.");
    expect(suspended.status).toBe("suspended");
    const approvalId = suspended.approvals?.[0]?.approvalId ?? "";
    expect(desk.runs).toEqual([]);
    // The process that suspended goes away.
    await store.close();

    // `--as NAME` without a token is accepted only at an interactive terminal.
    const decided = await runDocketTty(
      ["approvals", "approve", approvalId, "--as", "alice", "--store", url, "--config", config],
      { cwd: dir, env: { HOME: dir } },
    );
    expect(decided.code, decided.stderr).toBe(0);
    expect(decided.stdout.trim()).toBe(`${approvalId} approved by alice`);

    const child = await resumeInChild(file, scriptFile, suspended.sessionId);
    expect(child).toMatchObject({
      status: "completed",
      text: "The refund of 200 USD is on its way.",
      runs: ["issue_refund:r1"],
    });

    const reopened = await openStore(url);
    try {
      const saved = await expectWholeBatches(reopened, suspended.sessionId);
      expect(saved.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
      const results = saved.flatMap((m) => (m.role === "tool" ? m.results : []));
      expect(results.map((r) => [r.callId, r.status])).toEqual([["r1", "ok"]]);
      // The one request the child made carried exactly the saved transcript.
      expect(child.prompts).toEqual([toPrompt(saved.slice(0, 3))]);
      const calls = await reopened.listCalls({ sessionId: suspended.sessionId });
      expect(calls.map((c) => c.callId)).toEqual(["r1"]);
    } finally {
      await reopened.close();
    }
  });
});
