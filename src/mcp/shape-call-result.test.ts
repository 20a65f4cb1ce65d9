import { describe, expect, it } from "vitest";
import { errorText, shapeCallResult } from "./shape-call-result.js";

describe("shapeCallResult", () => {
  it("turns every kind of content into text", () => {
    const text = shapeCallResult({
      content: [
        { type: "text", text: "first" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "audio", data: "AAAAAA==", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a.txt", name: "a.txt" },
        { type: "resource", resource: { uri: "file:///b.txt", text: "inside b" } },
        {
          type: "resource",
          resource: { uri: "file:///c.bin", blob: "AAAA", mimeType: "application/octet-stream" },
        },
      ],
    });
    expect(text.split("\n")).toEqual([
      "first",
      "[image: image/png, 3 bytes]",
      "[audio: audio/wav, 4 bytes]",
      "[resource link: a.txt <file:///a.txt>]",
      "[resource <file:///b.txt>]",
      "inside b",
      "[resource <file:///c.bin> application/octet-stream, 3 bytes]",
    ]);
  });

  it("falls back to structured content only when there is no content", () => {
    expect(shapeCallResult({ content: [], structuredContent: { n: 1 } })).toBe('{"n":1}');
    expect(
      shapeCallResult({ content: [{ type: "text", text: "t" }], structuredContent: { n: 1 } }),
    ).toBe("t");
    expect(shapeCallResult({ content: [] })).toBe("");
  });
});

describe("errorText", () => {
  it("puts the server's words on one line", () => {
    expect(
      errorText({ isError: true, content: [{ type: "text", text: "ENOENT:\n  no such file" }] }),
    ).toBe("ENOENT: no such file");
    expect(errorText({ isError: true, content: [] })).toBe(
      "the server reported an error without words",
    );
  });
});
