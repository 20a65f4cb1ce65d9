import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryEventSink } from "../../src/checkpoint/memory-event-sink.js";
import {
  createGatewayBackend,
  type McpGatewayBackend,
} from "../../src/mcp/create-gateway-backend.js";
import { dynamicServer, everythingServer, isAlive, memoryLog } from "./support/mcp-fixtures.js";

const { lines, log } = memoryLog();
let backend: McpGatewayBackend;

const call = (name: string, args: unknown) =>
  backend.checkpoint.dispatch({ id: `r-${Math.random()}`, name, arguments: JSON.stringify(args) });
const status = (server: string) => {
  const found = backend.upstreams.status().find((s) => s.server === server);
  if (!found) throw new Error(`no server ${server}`);
  return found;
};

beforeAll(async () => {
  backend = await createGatewayBackend({
    events: createMemoryEventSink(),
    mcp: {
      servers: {
        // A short idle deadline, so that "no progress" fails quickly.
        everything: everythingServer({ timeout_ms: 600, max_total_timeout_ms: 20_000 }),
        dyn: dynamicServer(),
      },
    },
    log,
    policy: () => ({ decision: "allow" }),
  });
});

afterAll(async () => {
  await backend?.close();
});

describe("long calls and deadlines", () => {
  it("lets progress notifications extend the idle deadline past timeout_ms", async () => {
    // 1.5 s in total, a progress notification every 250 ms: longer than the 600 ms idle deadline.
    const result = await call("everything__trigger-long-running-operation", {
      duration: 1.5,
      steps: 6,
    });
    expect(result).toMatchObject({ status: "ok" });
    expect(result.output).toContain("Long running operation completed");
  });

  it("fails a call that sends neither a result nor progress within timeout_ms", async () => {
    const result = await call("everything__trigger-long-running-operation", {
      duration: 1.5,
      steps: 1,
    });
    expect(result).toMatchObject({ status: "failed", reason: "error" });
    expect(result.message).toContain("sent neither a result nor progress for 600 ms");
  });
});

describe("a server that dies", () => {
  it("fails the call in flight when the server is killed, and restarts it on the next call", async () => {
    const { pid } = status("everything");
    expect(pid).toBeTypeOf("number");
    const running = call("everything__trigger-long-running-operation", { duration: 5, steps: 50 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(pid as number, "SIGKILL");
    const result = await running;
    expect(result).toMatchObject({ status: "failed", reason: "error" });
    expect(result.message).toMatch(/stopped during the call \(killed by SIGKILL\)/);
    expect(status("everything").state).toBe("down");

    const next = await call("everything__echo", { message: "again" });
    expect(next).toMatchObject({ status: "ok", output: "Echo: again" });
    expect(status("everything")).toMatchObject({ state: "connected", restarts: 1, failures: 0 });
    expect(status("everything").pid).not.toBe(pid);
    expect(isAlive(pid as number)).toBe(false);
    expect(lines.some((l) => l.level === "error" && /SIGKILL/.test(l.message))).toBe(true);
  });

  it("waits longer after each crash in a row instead of restarting in a hot loop", async () => {
    const crash = await call("dyn__crash", {});
    expect(crash).toMatchObject({ status: "failed" });
    expect(crash.message).toContain("exit code 3");

    let started = Date.now();
    expect(await call("dyn__crash", {})).toMatchObject({ status: "failed" });
    const first = Date.now() - started;

    started = Date.now();
    const hello = await call("dyn__hello", { name: "you" });
    const second = Date.now() - started;
    expect(hello).toMatchObject({ status: "ok", output: "hello you" });
    // Two failures in a row: 0.5 s, then 1 s before the restarts (from the crash, not the call).
    expect(first).toBeGreaterThanOrEqual(400);
    expect(second).toBeGreaterThanOrEqual(900);
    expect(status("dyn")).toMatchObject({ restarts: 2, failures: 0 });
  });
});
