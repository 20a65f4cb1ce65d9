import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseChatLine } from "./chat-slash.js";

describe("parseChatLine", () => {
  it("reads commands, messages, paths and the // escape", () => {
    expect(parseChatLine("/audit")).toEqual({ type: "command", name: "audit", rest: "" });
    expect(parseChatLine("  /Help me")).toEqual({ type: "command", name: "help", rest: "me" });
    expect(parseChatLine("/etc/hosts has what?")).toEqual({
      type: "message",
      text: "/etc/hosts has what?",
    });
    expect(parseChatLine("//audit is a word")).toEqual({
      type: "message",
      text: "/audit is a word",
    });
    expect(parseChatLine("  ")).toEqual({ type: "empty" });
    expect(parseChatLine("/clear\nand more")).toEqual({
      type: "command",
      name: "clear",
      rest: "and more",
    });
  });

  it("a line starting with /word is never a message (property)", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z][\w-]{0,12}$/),
        fc.string(),
        (name, rest) => parseChatLine(`/${name} ${rest}`).type === "command",
      ),
    );
  });
});
