import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../../src/approval/approval.js";
import { createMemoryEventSink } from "../../src/checkpoint/memory-event-sink.js";
import {
  createGatewayBackend,
  type McpGatewayBackend,
} from "../../src/mcp/create-gateway-backend.js";
import {
  dynamicServer,
  everythingServer,
  filesystemBin,
  memoryLog,
} from "./support/mcp-fixtures.js";

const workspace = realpathSync(mkdtempSync(join(tmpdir(), "docket-mcp-fs-")));
const approvals: ApprovalRequest[] = [];
const events = createMemoryEventSink();
const { lines, log } = memoryLog();
let backend: McpGatewayBackend;

const call = (name: string, args: unknown, id = `t-${Math.random()}`) =>
  backend.checkpoint.dispatch({ id, name, arguments: JSON.stringify(args) });

beforeAll(async () => {
  backend = await createGatewayBackend({
    mcp: {
      servers: {
        everything: everythingServer(),
        trusted: everythingServer({ trusted: true, writes: { "get-env": true } }),
        fs: {
          command: filesystemBin,
          args: [workspace],
          policy_args: { write_file: { path: "path" } },
        },
        dyn: dynamicServer({ writes: false }),
      },
    },
    log,
    events,
    policy: {
      rules: [
        { decision: "deny", tool: "fs__move_file", reason: "files stay where they are" },
        { decision: "allow", tool: ["dyn__*", "everything__get-sum", "everything__echo"] },
        { decision: "allow", tool: ["everything__get-tiny-image", "fs__read_text_file"] },
      ],
    },
    approvals: (request) => {
      approvals.push(request);
      const content = String(request.args.content ?? "");
      return content.includes("forbidden")
        ? { decision: "deny", by: "reviewer", reason: "not that text" }
        : { decision: "approve", by: "reviewer" };
    },
  });
});

afterAll(async () => {
  await backend?.close();
  rmSync(workspace, { recursive: true, force: true });
});

describe("listing upstream tools", () => {
  it("lists every page of every server, namespaced as SERVER__tool", () => {
    const names = backend.tools().map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "everything__echo",
        "everything__get-sum",
        "everything__trigger-long-running-operation",
        "fs__write_file",
        "fs__read_text_file",
        // dynamic-server.ts lists two tools a page.
        "dyn__hello",
        "dyn__fail",
        "dyn__whoami",
        "dyn__add_tool",
        "dyn__crash",
        "dyn__spawn_child",
      ]),
    );
    expect(names.every((name) => /^[a-zA-Z0-9_-]{1,64}$/.test(name))).toBe(true);
  });

  it("skips unusable tools with a warning instead of failing", () => {
    const names = backend.tools().map((tool) => tool.name);
    expect(names).not.toContain("dyn__bad_schema");
    expect(names.some((name) => name.startsWith("dyn__nnn"))).toBe(false);
    // Needs task-based execution, which docket does not do.
    expect(names).not.toContain("everything__simulate-research-query");
    const warnings = lines.filter((line) => line.level === "warn").map((line) => line.message);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/"bad_schema" is unavailable: .*does not compile/),
        expect.stringMatching(/is not a usable tool name/),
        expect.stringMatching(/"simulate-research-query" is unavailable: .*task/),
      ]),
    );
  });

  it("believes readOnlyHint only from trusted servers, and config overrides both", () => {
    const tool = (name: string) => backend.tools().find((t) => t.name === name);
    expect(tool("everything__echo")?.writes).toBe(true);
    expect(tool("trusted__echo")?.writes).toBe(false);
    expect(tool("trusted__get-env")?.writes).toBe(true);
    expect(tool("dyn__fail")?.writes).toBe(false);
    expect(tool("fs__write_file")?.policyArgs).toEqual({ path: "path" });
    // Long calls are capped by the total deadline, not the idle one.
    expect(tool("everything__echo")?.timeoutMs).toBeGreaterThan(600_000);
  });
});

describe("calling upstream tools through the checkpoint", () => {
  it("runs an allowed call and shapes the content into text", async () => {
    const result = await call("everything__get-sum", { a: 2, b: 3 });
    expect(result).toMatchObject({ status: "ok", output: "The sum of 2 and 3 is 5." });
    const image = await call("everything__get-tiny-image", {});
    expect(image.status).toBe("ok");
    expect(image.output).toMatch(/\[image: image\/png, [\d,]+ bytes\]/);
  });

  it("refuses invalid arguments before the server sees them", async () => {
    const result = await call("everything__get-sum", { a: "two", b: 3 });
    expect(result).toMatchObject({ status: "refused", reason: "invalid_arguments" });
  });

  it("blocks a real upstream write with a deny rule", async () => {
    const target = join(workspace, "moved.txt");
    const result = await call("fs__move_file", {
      source: join(workspace, "a"),
      destination: target,
    });
    expect(result).toMatchObject({ status: "refused", reason: "denied" });
    expect(result.message).toContain("files stay where they are");
    expect(existsSync(target)).toBe(false);
  });

  it("runs an upstream write once an approver approves it, and not when one denies", async () => {
    const target = join(workspace, "note.txt");
    const approved = await call("fs__write_file", { path: target, content: "hello" });
    expect(approved).toMatchObject({ status: "ok" });
    expect(readFileSync(target, "utf8")).toBe("hello");
    expect(approvals.at(-1)?.tool.name).toBe("fs__write_file");

    const denied = await call("fs__write_file", { path: target, content: "forbidden" });
    expect(denied).toMatchObject({ status: "refused", reason: "approval_denied" });
    expect(readFileSync(target, "utf8")).toBe("hello");
  });

  it("turns isError results into failed results carrying the server's words", async () => {
    const missing = await call("fs__read_text_file", { path: join(workspace, "missing.txt") });
    expect(missing).toMatchObject({ status: "failed", reason: "error" });
    expect(missing.message).toMatch(/ENOENT|no such file/i);

    const broken = await call("dyn__fail", {});
    expect(broken).toMatchObject({ status: "failed", reason: "error" });
    expect(broken.message).toContain("it broke: the disk is full");
    const finished = events.events.filter(
      (e) => e.type === "finished" && e.callId === broken.callId,
    );
    expect(finished).toHaveLength(1);
  });
});
