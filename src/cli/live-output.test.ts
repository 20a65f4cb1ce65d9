import { describe, expect, it } from "vitest";
import { createLiveOutput } from "./live-output.js";

describe("live command output", () => {
  it("shows whole lines indented, with control characters made visible", async () => {
    const written: string[] = [];
    const live = createLiveOutput({ write: (text) => written.push(text), intervalMs: 1 });
    live.push("stdout", Buffer.from("one\ntw"));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(written.join("")).toBe("    │ one\n");
    live.push("stderr", Buffer.from("\u001b[2Jx\n"));
    live.push("stdout", Buffer.from("o"));
    live.end();
    expect(written.join("")).toBe("    │ one\n    │ tw\\u{001b}[2Jx\n    │ o\n");
  });

  it("keeps a fixed amount however much a command floods, and says what it dropped", () => {
    const written: string[] = [];
    const live = createLiveOutput({ write: (text) => written.push(text), maxPending: 100 });
    const line = Buffer.from(`${"y".repeat(99)}\n`);
    for (let i = 0; i < 10_000; i += 1) live.push("stdout", line);
    live.end();
    const text = written.join("");
    expect(text).toContain("[… 999900 characters not shown …]");
    expect(text.length).toBeLessThan(300);
  });

  it("does not split a character across chunks", () => {
    const written: string[] = [];
    const live = createLiveOutput({ write: (text) => written.push(text) });
    const bytes = Buffer.from("é\n");
    live.push("stdout", bytes.subarray(0, 1));
    live.push("stdout", bytes.subarray(1));
    live.end();
    expect(written.join("")).toBe("    │ é\n");
  });
});
