import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  type CallToolResult,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wrapUntrusted } from "../../src/checkpoint/wrap-untrusted.js";
import { childEnv } from "../support/child-env.js";
import { gatewayMainPath, isAlive, tsxLoader, waitFor } from "./support/mcp-fixtures.js";

let client: Client;
let transport: StdioClientTransport;
let stderr = "";

const callTool = async (name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === "text" ? block.text : "")).join("");

beforeAll(async () => {
  transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", tsxLoader, gatewayMainPath, "gateway"],
    env: childEnv(),
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  client = new Client({ name: "gateway-test", version: "1.0.0" });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
});

describe("docket gateway over stdio", () => {
  it("lists the whole menu with the upstream schemas passed through", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(["everything__echo", "dyn__hello", "dyn__whoami"]),
    );
    const echo = tools.find((tool) => tool.name === "everything__echo");
    expect(echo?.inputSchema).toMatchObject({
      type: "object",
      properties: { message: { type: "string" } },
      required: ["message"],
    });
    // server-everything is not trusted here, so its readOnlyHint does not make a read.
    expect(echo?.annotations?.readOnlyHint).toBe(false);
  });

  it("sends each call through the checkpoint", async () => {
    const echo = await callTool("everything__echo", { message: "through docket" });
    expect(echo.isError).toBeFalsy();
    expect(textOf(echo)).toBe(wrapUntrusted("everything__echo", "Echo: through docket"));
    expect(echo._meta?.["docket/call"]).toMatchObject({ status: "ok" });

    // A write with no rule asks; the gateway's approver approves it.
    const sum = await callTool("everything__get-sum", { a: 1, b: 2 });
    expect(textOf(sum)).toBe(wrapUntrusted("everything__get-sum", "The sum of 1 and 2 is 3."));
  });

  it("answers refusals as errors with the reason in words", async () => {
    const denied = await callTool("everything__get-env");
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain("the environment stays private");
    expect(denied._meta?.["docket/call"]).toMatchObject({ status: "refused", reason: "denied" });

    const unknown = await callTool("nope");
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('There is no tool named "nope"');

    const invalid = await callTool("dyn__hello", { name: 42 });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain("/name");

    // A misspelt name with arguments no schema would take: the answer is about the name.
    const misspelt = await callTool("dyn__helo", { name: 42 });
    expect(misspelt._meta?.["docket/call"]).toMatchObject({
      status: "refused",
      reason: "unknown_tool",
    });
    expect(textOf(misspelt)).toContain('There is no tool named "dyn__helo"');

    const failed = await callTool("dyn__fail");
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toContain("it broke: the disk is full");
  });

  it("tells the client when an upstream server's menu changes", async () => {
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1;
    });
    // A write: the gateway's approver approves it.
    await callTool("dyn__add_tool", { name: "via_stdio" });
    await waitFor(() => changed > 0, 5_000, "tools/list_changed");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("dyn__via_stdio");
  });

  it("stops the upstream servers when the client goes away", async () => {
    // The upstream's answer is the data envelope's one line of content.
    const page = textOf(await callTool("dyn__whoami")).split("\n");
    const who = JSON.parse(page[2] ?? "") as { pid: number };
    const gatewayPid = transport.pid as number;
    expect(isAlive(who.pid)).toBe(true);
    await client.close();
    await waitFor(() => !isAlive(who.pid), 5_000, "the upstream server to stop");
    await waitFor(() => !isAlive(gatewayPid), 5_000, "the gateway to exit");
    expect(stderr).not.toMatch(/gateway-main:/);
  });
});
