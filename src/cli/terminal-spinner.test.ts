import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createTerminalSpinner } from "./terminal-spinner.js";

function screen(isTTY: boolean) {
  const stream = Object.assign(new PassThrough(), { isTTY });
  let text = "";
  stream.on("data", (chunk) => {
    text += String(chunk);
  });
  return { stream, text: () => text };
}

describe("the terminal spinner", () => {
  it("draws a label with elapsed time and clears its line when stopped", async () => {
    const out = screen(true);
    const spinner = createTerminalSpinner({ stream: out.stream, intervalMs: 5 });
    spinner.start("thinking");
    await new Promise((resolve) => setTimeout(resolve, 30));
    spinner.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.text()).toMatch(/thinking… \d+\.\ds/);
    expect(out.text().endsWith("\r\u001b[2K")).toBe(true);
  });

  it("steps aside for a line of output and comes back", async () => {
    const out = screen(true);
    const spinner = createTerminalSpinner({ stream: out.stream, intervalMs: 1000 });
    spinner.start("running run_command");
    spinner.around(() => out.stream.write("a line\n"));
    spinner.stop();
    await new Promise((resolve) => setImmediate(resolve));
    const clear = "\r\u001b[2K";
    const text = out.text();
    expect(text).toContain(`s${clear}a line\n${clear}`);
    expect(text.slice(text.indexOf("a line"))).toContain("running run_command");
  });

  it("writes nothing at all when the stream is not a terminal", async () => {
    const out = screen(false);
    const spinner = createTerminalSpinner({ stream: out.stream, intervalMs: 1 });
    spinner.start("thinking");
    await new Promise((resolve) => setTimeout(resolve, 10));
    spinner.around(() => out.stream.write("x\n"));
    spinner.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.text()).toBe("x\n");
  });
});
