import { describe, expect, it } from "vitest";
import { colourEnabled } from "./colour-enabled.js";
import { terminalStyle } from "./terminal-style.js";

const tty = { isTTY: true };
const pipe = { isTTY: false };

describe("whether colour is on", () => {
  it("is on at a terminal and off on a pipe", () => {
    expect(colourEnabled(tty, {})).toBe(true);
    expect(colourEnabled(pipe, {})).toBe(false);
  });

  it("is off with NO_COLOR (any non-empty value) and on a dumb terminal", () => {
    expect(colourEnabled(tty, { NO_COLOR: "1" })).toBe(false);
    expect(colourEnabled(tty, { NO_COLOR: "" })).toBe(true);
    expect(colourEnabled(tty, { TERM: "dumb" })).toBe(false);
    expect(colourEnabled(tty, { NO_COLOR: "1", FORCE_COLOR: "1" })).toBe(false);
  });

  it("is forced by FORCE_COLOR, except 0 and false", () => {
    expect(colourEnabled(pipe, { FORCE_COLOR: "1" })).toBe(true);
    expect(colourEnabled(tty, { FORCE_COLOR: "0" })).toBe(false);
    expect(colourEnabled(tty, { FORCE_COLOR: "false" })).toBe(false);
  });
});

describe("terminal styles", () => {
  it("colour decisions by meaning and keep the word", () => {
    const style = terminalStyle(true);
    expect(style.status("allow")).toBe("\u001b[32mallow\u001b[39m");
    expect(style.status("ask")).toBe("\u001b[33mask\u001b[39m");
    expect(style.status("refused", "✗ refused")).toBe("\u001b[31m✗ refused\u001b[39m");
    expect(style.status("unknown")).toBe("unknown");
  });

  it("are the identity when colour is off", () => {
    const style = terminalStyle(false);
    for (const word of ["allow", "ask", "deny", "ok", "failed"]) {
      expect(style.status(word)).toBe(word);
    }
    expect(style.dim("x")).toBe("x");
  });
});
