import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileInput } from "../tool/input-schema.js";
import { hostInputSchema } from "./host-input-schema.js";

const shell = compileInput(hostInputSchema({ command: "command" }), "run_command");
const edit = compileInput(hostInputSchema({ path: ["file_path", "notebook_path"] }), "edit_file");

describe("hostInputSchema", () => {
  it("describes itself as the JSON Schema the mapping implies", () => {
    expect(shell.jsonSchema).toEqual({
      type: "object",
      properties: { command: { type: "string" } },
      required: ["command"],
    });
    expect(edit.jsonSchema).toEqual({
      type: "object",
      properties: { file_path: { type: "string" }, notebook_path: { type: "string" } },
      required: [],
    });
  });

  it("requires a command or URL as text, paths as text when present, and keeps other keys", () => {
    expect(shell.validate({ command: "ls", description: "look", timeout: 5 })).toEqual({
      status: "valid",
      value: { command: "ls", description: "look", timeout: 5 },
    });
    expect(shell.validate({})).toEqual({
      status: "invalid",
      issues: [{ path: "/command", message: "is required" }],
    });
    expect(shell.validate({ command: ["rm", "-rf", "/"] })).toEqual({
      status: "invalid",
      issues: [{ path: "/command", message: "must be text" }],
    });
    expect(edit.validate({ old_string: "a" })).toMatchObject({ status: "valid" });
    expect(edit.validate({ file_path: { toString: "x" } })).toEqual({
      status: "invalid",
      issues: [{ path: "/file_path", message: "must be text" }],
    });
    for (const value of [null, [], "ls", 3])
      expect(shell.validate(value)).toEqual({
        status: "invalid",
        issues: [{ path: "", message: "must be an object" }],
      });
  });

  it("does not take an inherited property for the command", () => {
    const inherited = Object.create({ command: "ls" }) as object;
    expect(shell.validate(inherited)).toMatchObject({ status: "invalid" });
  });

  it("accepts exactly the objects whose mapped keys hold text (property)", () => {
    const mapped = fc.constantFrom("command", "file_path");
    const anyValue = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string()),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.oneof(mapped, fc.string()), anyValue), (value) => {
        const schema = compileInput(
          hostInputSchema({ command: "command", path: "file_path" }),
          "run_command",
        );
        const outcome = schema.validate(value);
        const commandOk = typeof value.command === "string";
        const pathOk = !Object.hasOwn(value, "file_path") || typeof value.file_path === "string";
        expect(outcome).toMatchObject({ status: commandOk && pathOk ? "valid" : "invalid" });
        if (commandOk && pathOk) expect(outcome).toEqual({ status: "valid", value });
      }),
    );
  });
});
