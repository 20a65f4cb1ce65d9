import { describe, expect, it } from "vitest";
import { compileFlow } from "../checkpoint/flow-options.js";
import { BUILTIN_TOOL_META, toolMetaOf } from "../policy/builtin-tool-meta.js";
import type { Tool } from "../tool/tool.js";
import { BUILTIN_LISTS, builtinLists, builtinSends } from "./builtin-lists.js";
import { BUILTIN_MANIFEST, type BuiltinEntry, type BuiltinManifest } from "./builtin-manifest.js";
import { builtinTools } from "./builtin-tools.js";
import { editFileInput, editFileName } from "./files/edit-file.input.js";
import { listFilesInput, listFilesName } from "./files/list-files.input.js";
import { readFileInput, readFileName } from "./files/read-file.input.js";
import { searchFilesInput, searchFilesName } from "./files/search-files.input.js";
import { writeFileInput, writeFileName } from "./files/write-file.input.js";
import { runCommandInput, runCommandName } from "./shell/run-command.input.js";
import { runCommandTool } from "./shell/run-command-tool.js";
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

describe("the built-in manifest", () => {
  it("covers exactly the built-in tools, naming arguments their schemas have", () => {
    expect(Object.keys(BUILTIN_MANIFEST).sort()).toEqual(Object.keys(schemas).sort());
    for (const [tool, entry] of Object.entries(BUILTIN_MANIFEST)) {
      const shape = schemas[tool as keyof typeof schemas].shape;
      for (const argument of Object.values(entry.policyArgs)) {
        expect(Object.keys(shape)).toContain(argument);
      }
    }
  });

  it("marks the tools that change things as writes, the shell's per call", () => {
    const writers = Object.entries(BUILTIN_LISTS.writes)
      .filter(([, writes]) => writes)
      .map(([tool]) => tool)
      .sort();
    expect(writers).toEqual(["edit_file", "run_command", "write_file"]);
    expect(BUILTIN_MANIFEST.run_command.writes).toBe("per-call");
  });

  it("is what the built tools are: writes, per-call, open-world, confinement and policy arguments", () => {
    const tools = builtinTools({ workspace: process.cwd(), run: { sandbox: { mode: "off" } } });
    expect(tools.map((tool) => tool.name)).toEqual(BUILTIN_LISTS.names);
    for (const tool of tools) {
      const entry: BuiltinEntry = BUILTIN_MANIFEST[tool.name as keyof typeof BUILTIN_MANIFEST];
      expect(tool.writes, tool.name).toBe(BUILTIN_LISTS.writes[tool.name]);
      expect(tool.writesPerCall === true, tool.name).toBe(entry.writes === "per-call");
      expect(tool.openWorld, tool.name).toBe(entry.openWorld);
      expect(tool.confinement !== undefined, tool.name).toBe(entry.confined);
      expect(tool.policyArgs, tool.name).toEqual(entry.policyArgs);
      expect(tool.sends, tool.name).toBe(builtinSends(entry, tool.confinement));
      expect(BUILTIN_TOOL_META[tool.name], tool.name).toEqual({
        writes: tool.writes,
        policyArgs: tool.policyArgs,
        openWorld: tool.openWorld,
      });
    }
  });

  it("carries a new built-in into every derived list from its one entry (a test-only http_request)", () => {
    const manifest: BuiltinManifest = {
      ...BUILTIN_MANIFEST,
      http_request: {
        writes: "per-call",
        policyArgs: { url: "url" },
        openWorld: true,
        confined: false,
        readsContents: false,
        sends: true,
      },
    };
    const lists = builtinLists(manifest);
    expect(lists.names).toContain("http_request");
    expect(lists.writes.http_request).toBe(true);
    expect(lists.openWorld).toEqual(["fetch_url", "http_request"]);
    expect(lists.confined).toEqual(["run_command"]);
    expect(lists.sending).toEqual(["run_command", "fetch_url", "http_request"]);
    expect(toolMetaOf(manifest).http_request).toEqual({
      writes: true,
      policyArgs: { url: "url" },
      openWorld: true,
    });
    // The derived lists of the real manifest are untouched by the test's copy.
    expect(BUILTIN_LISTS.names).not.toContain("http_request");
  });
});

describe("what the built-ins send, from the manifest", () => {
  it("is what the checkpoint's flow classifies, sandboxed or not", () => {
    const expected = (sandboxed: boolean) => ({
      read_file: false,
      list_files: false,
      search_files: false,
      write_file: false,
      edit_file: false,
      run_command: !sandboxed,
      fetch_url: true,
    });
    const unconfined = builtinTools({
      workspace: process.cwd(),
      run: { sandbox: { mode: "off" } },
    });
    const outward = (tools: readonly Tool[]) =>
      Object.fromEntries(tools.map((tool) => [tool.name, compileFlow().sendsOf(tool)]));
    expect(outward(unconfined)).toEqual(expected(false));
    const tool = runCommandTool(process.cwd());
    // Sandboxed only where bubblewrap works here; either way the class follows the confinement.
    expect(compileFlow().sendsOf(tool)).toBe(tool.confinement?.status !== "sandboxed");
    expect(BUILTIN_LISTS.sending).toEqual(["run_command", "fetch_url"]);
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
