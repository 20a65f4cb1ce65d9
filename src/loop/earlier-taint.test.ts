import { describe, expect, it } from "vitest";
import { wrapUntrusted } from "../checkpoint/wrap-untrusted.js";
import { earlierTaint } from "./earlier-taint.js";

describe("earlierTaint", () => {
  it("finds the open-world results a transcript holds, and only those", () => {
    const page = wrapUntrusted("fetch_url https://x.example/", "hello");
    expect(
      earlierTaint([
        { role: "user", text: page },
        {
          role: "tool",
          results: [
            { callId: "c1", name: "read_file", status: "ok", text: "plain", isError: false },
            { callId: "c2", name: "fetch_url", status: "ok", text: page, isError: false },
            { callId: "c3", name: "x", status: "ok", text: `[recorded]\n${page}`, isError: false },
            { callId: "c4", name: "fetch_url", status: "refused", text: page, isError: true },
          ],
        },
      ]),
    ).toEqual([
      { tool: "fetch_url", source: "fetch_url https://x.example/", callId: "c2" },
      { tool: "x", source: "fetch_url https://x.example/", callId: "c3" },
    ]);
  });
});
