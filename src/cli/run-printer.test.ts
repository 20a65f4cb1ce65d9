import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createRunPrinter } from "./run-printer.js";

function capture() {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (chunk) => {
    text += String(chunk);
  });
  return { stream, text: () => text };
}

describe("the run printer", () => {
  it("never lets model output write escape sequences to the operator's terminal", () => {
    const out = capture();
    const err = capture();
    const printer = createRunPrinter({ json: false, stdout: out.stream, stderr: err.stream });
    printer.onEvent({ type: "text", delta: "fine\n\u001b[2Jcleared\rover\u202e" });
    printer.onEvent({
      type: "tool_call",
      call: { id: "c1", name: "run\u001b[8m", arguments: '{"command":"ls\\r"}\u001b]0;x\u0007' },
    });
    printer.onEvent({
      type: "tool_result",
      result: {
        callId: "c1",
        name: "run\u001b[8m",
        status: "refused",
        reason: "unknown_tool",
        message: "no \u001b[31mtool",
        durationMs: 1,
      },
    });
    expect(out.text()).toBe("fine\n\\u{001b}[2Jcleared\\u{000d}over\\u{202e}\n");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence is the point
    expect(err.text()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    expect(err.text()).toContain("run\\u{001b}[8m");
  });

  it("prints JSON lines unchanged in --json mode", () => {
    const out = capture();
    const printer = createRunPrinter({ json: true, stdout: out.stream, stderr: capture().stream });
    printer.onEvent({ type: "text", delta: "a\u001b" });
    expect(JSON.parse(out.text())).toEqual({ type: "text", delta: "a\u001b" });
  });
});
