import { afterAll, describe, expect, it } from "vitest";
import { createMemoryEventSink } from "../../src/checkpoint/memory-event-sink.js";
import {
  createGatewayBackend,
  type McpGatewayBackend,
} from "../../src/mcp/create-gateway-backend.js";
import { dynamicServer, memoryLog, waitFor } from "./support/mcp-fixtures.js";

let backend: McpGatewayBackend | undefined;

afterAll(async () => {
  await backend?.close();
});

describe("notifications/tools/list_changed", () => {
  it("refreshes the menu and the checkpoint, and tells listeners", async () => {
    const { log } = memoryLog();
    backend = await createGatewayBackend({
      mcp: { servers: { dyn: dynamicServer() } },
      log,
      policy: () => ({ decision: "allow" }),
      events: createMemoryEventSink(),
    });
    let told = 0;
    backend.onToolsChanged?.(() => {
      told += 1;
    });
    const before = backend.tools();
    expect(before.map((tool) => tool.name)).not.toContain("dyn__late_tool");
    const unknown = await backend.checkpoint.dispatch({
      id: "u1",
      name: "dyn__late_tool",
      arguments: "{}",
    });
    expect(unknown).toMatchObject({ status: "refused", reason: "unknown_tool" });

    const added = await backend.checkpoint.dispatch({
      id: "a1",
      name: "dyn__add_tool",
      arguments: '{"name":"late_tool"}',
    });
    expect(added).toMatchObject({ status: "ok", output: "added late_tool" });
    await waitFor(() => told > 0, 5_000, "the menu to change");

    const after = backend.tools();
    expect(after.map((tool) => tool.name)).toContain("dyn__late_tool");
    // Unchanged tools keep their entries: no schema is recompiled for nothing.
    const hello = (menu: typeof after) => menu.find((tool) => tool.name === "dyn__hello");
    expect(hello(after)).toBe(hello(before));
    const called = await backend.checkpoint.dispatch({
      id: "c1",
      name: "dyn__late_tool",
      arguments: "{}",
    });
    expect(called).toMatchObject({ status: "ok", output: "I am late_tool" });
  });
});
