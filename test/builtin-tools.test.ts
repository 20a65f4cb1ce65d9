import { mkdir, mkdtemp, readFile, realpath, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  builtinTools,
  createCheckpoint,
  createMemoryEventSink,
  renderResult,
  type ToolResult,
} from "../src/index.js";

let workspace: string;
let outside: string;
const allowAll = () => ({ decision: "allow" as const, rule: "allow-all" });

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "docket-ws-")));
  outside = await realpath(await mkdtemp(join(tmpdir(), "docket-outside-")));
  await writeFile(join(workspace, "notes.txt"), "one\ntwo\nthree\n");
  await writeFile(join(outside, "secret.txt"), "top secret\n");
  await mkdir(join(workspace, "links"));
  await symlink(join(outside, "secret.txt"), join(workspace, "links", "secret-link.txt"));
  await symlink(outside, join(workspace, "links", "outside-dir"));
});

afterAll(() => {});

function checkpoint() {
  return createCheckpoint({
    tools: builtinTools({ workspace }),
    policy: allowAll,
    events: createMemoryEventSink(),
  });
}

let n = 0;
const call = (name: string, args: unknown) => ({
  id: `call_${++n}`,
  name,
  arguments: JSON.stringify(args),
});
const dispatch = (name: string, args: unknown): Promise<ToolResult> =>
  checkpoint().dispatch(call(name, args));

describe("built-in tools through the checkpoint", () => {
  it("publishes seven tools, each declaring its policy argument", () => {
    const tools = builtinTools({ workspace });
    expect(tools.map((t) => [t.name, t.writes, t.policyArgs])).toEqual([
      ["read_file", false, { path: "path" }],
      ["list_files", false, { path: "path" }],
      ["search_files", false, { path: "path" }],
      ["write_file", true, { path: "path" }],
      ["edit_file", true, { path: "path" }],
      ["run_command", true, { command: "command" }],
      ["fetch_url", false, { url: "url" }],
    ]);
    expect(builtinTools({ workspace, exclude: ["run_command"] }).map((t) => t.name)).not.toContain(
      "run_command",
    );
  });

  it("reads, writes, edits, lists and searches inside the workspace", async () => {
    expect(await dispatch("read_file", { path: "notes.txt" })).toMatchObject({
      status: "ok",
      output: expect.stringContaining("two"),
    });
    expect(
      await dispatch("write_file", { path: "new/dir/file.txt", content: "hello\n" }),
    ).toMatchObject({ status: "ok" });
    expect(await readFile(join(workspace, "new/dir/file.txt"), "utf8")).toBe("hello\n");
    const edit = await dispatch("edit_file", {
      path: "new/dir/file.txt",
      old_string: "hello",
      new_string: "goodbye",
    });
    expect(edit).toMatchObject({ status: "ok", output: expect.stringContaining("+goodbye") });
    expect(await dispatch("list_files", { pattern: "**/*.txt" })).toMatchObject({
      output: expect.stringContaining("new/dir/file.txt"),
    });
    expect(await dispatch("search_files", { pattern: "thr+ee" })).toMatchObject({
      output: expect.stringContaining("notes.txt:3"),
    });
  });

  it("holds the workspace jail even when the policy allows everything", async () => {
    for (const [name, args] of [
      ["read_file", { path: "../secret.txt" }],
      ["read_file", { path: join(outside, "secret.txt") }],
      ["read_file", { path: "links/secret-link.txt" }],
      ["read_file", { path: "links/outside-dir/secret.txt" }],
      ["read_file", { path: "~/.ssh/id_rsa" }],
      ["write_file", { path: "links/outside-dir/planted.txt", content: "x" }],
      ["write_file", { path: "../../planted.txt", content: "x" }],
      ["list_files", { path: "links/outside-dir" }],
    ] as const) {
      const result = await dispatch(name, args);
      expect(result.status, `${name} ${JSON.stringify(args)}`).toBe("failed");
      expect(result.message).toMatch(/outside the workspace|workspace/i);
    }
  });

  it("runs a command in the workspace and reports its exit code", async () => {
    const result = await dispatch("run_command", {
      command: "pwd; echo out; echo err >&2; exit 3",
    });
    // A non-zero exit is a failure, with the output kept for the model.
    expect(result).toMatchObject({
      status: "failed",
      reason: "command_failed",
      message: "run_command failed: the command exited with code 3.",
    });
    expect(String(result.output)).toContain(workspace);
    expect(renderResult(result)).toMatch(
      /^run_command failed: the command exited with code 3\.\nExit code 3 after \d+ ms\.\n\[stdout\]\n.*\nout\n\[stderr\]\nerr$/,
    );
  });

  it("refuses a fetch of a loopback address in words", async () => {
    const result = await dispatch("fetch_url", { url: "http://127.0.0.1:9/" });
    expect(result.status).toBe("failed");
    expect(result.message).toMatch(/127\.0\.0\.1/);
  });
});
