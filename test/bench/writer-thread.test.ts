import { describe, expect, it, vi } from "vitest";
import { benchWriterThread } from "../../bench/writer-thread.js";

describe("bench/writer-thread", () => {
  it("commits every row on both threads and prints the CPU of each, the main thread's and wall", async () => {
    const lines: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((line: string) => {
      lines.push(line);
    });
    try {
      // The bench throws when a way leaves fewer rows than it acknowledged commits.
      await benchWriterThread({ commits: 20, rounds: 2 });
    } finally {
      log.mockRestore();
    }
    const figure = /CPU +\d+\.\d µs a commit \(main thread +\d+\.\d\), wall +\d+\.\d µs/;
    expect(lines.find((line) => line.includes("on the main thread (today)"))).toMatch(figure);
    expect(lines.find((line) => line.includes("on a writer thread, each acknowledged"))).toMatch(
      figure,
    );
  }, 60_000);
});
