import { describe, expect, it } from "vitest";
import { editFileInput, editFileName } from "./files/edit-file.input.js";
import { listFilesInput, listFilesName } from "./files/list-files.input.js";
import { readFileInput, readFileName } from "./files/read-file.input.js";
import { searchFilesInput, searchFilesName } from "./files/search-files.input.js";
import { writeFileInput, writeFileName } from "./files/write-file.input.js";
import { builtinPolicyArgs, builtinWrites } from "./policy-args.js";
import { runCommandInput, runCommandName } from "./shell/run-command.input.js";
import { fetchUrlInput, fetchUrlName } from "./web/fetch-url.input.js";

const schemas = {
  [readFileName]: readFileInput,
  [listFilesName]: listFilesInput,
  [searchFilesName]: searchFilesInput,
  [writeFileName]: writeFileInput,
  [editFileName]: editFileInput,
  [runCommandName]: runCommandInput,
  [fetchUrlName]: fetchUrlInput,
};

describe("builtinPolicyArgs", () => {
  it("covers exactly the built-in tools, naming arguments their schemas have", () => {
    expect(Object.keys(builtinPolicyArgs).sort()).toEqual(Object.keys(schemas).sort());
    expect(Object.keys(builtinWrites).sort()).toEqual(Object.keys(schemas).sort());
    for (const [tool, roles] of Object.entries(builtinPolicyArgs)) {
      const shape = schemas[tool as keyof typeof schemas].shape;
      for (const argument of Object.values(roles)) expect(Object.keys(shape)).toContain(argument);
    }
  });

  it("marks the tools that change things as writes", () => {
    const writers = Object.entries(builtinWrites)
      .filter(([, writes]) => writes)
      .map(([tool]) => tool)
      .sort();
    expect(writers).toEqual(["edit_file", "run_command", "write_file"]);
  });
});

describe("input schemas", () => {
  it("reject unknown keys and out-of-range numbers", () => {
    expect(readFileInput.safeParse({ path: "a", extra: 1 }).success).toBe(false);
    expect(readFileInput.safeParse({ path: "a", limit: 0 }).success).toBe(false);
    expect(readFileInput.safeParse({ path: "a", offset: 1.5 }).success).toBe(false);
    expect(runCommandInput.safeParse({ command: "ls", timeout_ms: -1 }).success).toBe(false);
    expect(fetchUrlInput.safeParse({ url: "https://x.org", max_bytes: 10 }).success).toBe(true);
  });

  it("describe every field for the model", () => {
    for (const schema of Object.values(schemas)) {
      for (const field of Object.values(schema.shape)) {
        expect(field.description ?? "").not.toBe("");
      }
    }
  });
});
