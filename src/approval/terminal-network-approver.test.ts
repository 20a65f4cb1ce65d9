import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createTerminalNetworkApprover } from "./terminal-network-approver.js";

function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (chunk: Buffer) => {
    shown += chunk.toString();
  });
  return { input, output, shown: () => shown };
}

const request = { host: "api.github.com", port: 443, rule: "project:ask:*.github.com" };

describe("createTerminalNetworkApprover", () => {
  it("allows one connection on 'a', after asking again for an answer it does not know", async () => {
    const t = terminal();
    const approve = createTerminalNetworkApprover(t);
    const answer = approve(request, new AbortController().signal);
    t.input.write("maybe\n");
    t.input.write("a\n");
    expect(await answer).toBe(true);
    expect(t.shown()).toContain("connect to api.github.com:443 (rule project:ask:*.github.com)");
    expect(t.shown()).toContain("[a]llow or [d]eny?");
  });

  it("denies on 'd', an empty line, the end of input, or the ask's timeout", async () => {
    for (const typed of ["d\n", "\n"]) {
      const t = terminal();
      const answer = createTerminalNetworkApprover(t)(request, new AbortController().signal);
      t.input.write(typed);
      expect(await answer).toBe(false);
    }
    const ended = terminal();
    const answer = createTerminalNetworkApprover(ended)(request, new AbortController().signal);
    ended.input.end();
    expect(await answer).toBe(false);
    const silent = terminal();
    expect(await createTerminalNetworkApprover(silent)(request, AbortSignal.timeout(50))).toBe(
      false,
    );
  });

  it("asks one question at a time, and shows a hostile host's control characters", async () => {
    const t = terminal();
    const approve = createTerminalNetworkApprover(t);
    const first = approve(
      { ...request, host: "a.example\r\u001b[2Kok.example" },
      new AbortController().signal,
    );
    const second = approve(request, new AbortController().signal);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(t.shown().match(/asks to connect/g)).toHaveLength(1);
    expect(t.shown()).not.toContain("\r");
    expect(t.shown()).not.toContain("\u001b");
    t.input.write("d\n");
    expect(await first).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    t.input.write("a\n");
    expect(await second).toBe(true);
  });
});
