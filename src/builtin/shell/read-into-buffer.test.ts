import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { readIntoBuffer } from "./read-into-buffer.js";

describe("readIntoBuffer", () => {
  it("reads a child's pipe through the one buffer it was given, to the end", async () => {
    const child = spawn("sh", ["-c", "yes abcdefgh | head -c 20000000; echo END"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    const buffer = Buffer.alloc(64 * 1024);
    const seen = new Set<ArrayBufferLike>();
    let total = 0;
    let last = "";
    // On the Node docket supports this must hold: a fallback here would be a silent regression.
    expect(
      readIntoBuffer(child.stdout, buffer, (bytes) => {
        seen.add(bytes.buffer);
        total += bytes.length;
        last = (last + bytes.toString("latin1")).slice(-16);
      }),
    ).toBe(true);
    child.stdout.resume();
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(total).toBe(20_000_004);
    expect(last.endsWith("END\n")).toBe(true);
    expect([...seen]).toEqual([buffer.buffer]);
  });

  it("changes nothing on a stream already flowing", () => {
    const child = spawn("true", { stdio: ["ignore", "pipe", "ignore"] });
    child.stdout.on("data", () => {});
    expect(readIntoBuffer(child.stdout, Buffer.alloc(16), () => {})).toBe(false);
  });
});
