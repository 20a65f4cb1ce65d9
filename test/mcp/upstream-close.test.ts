import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createMemoryEventSink } from "../../src/checkpoint/memory-event-sink.js";
import { connectMcpServers } from "../../src/mcp/connect-mcp-servers.js";
import { createLiveCheckpoint } from "../../src/mcp/live-checkpoint.js";
import {
  dynamicServerPath,
  everythingServer,
  isAlive,
  memoryLog,
  tsxLoader,
  waitFor,
} from "./support/mcp-fixtures.js";

const allow = () => ({ decision: "allow" as const });

async function whoami(
  checkpoint: ReturnType<typeof createLiveCheckpoint>,
  name: string,
): Promise<{ pid: number; ppid: number }> {
  const result = await checkpoint.dispatch({ id: `w-${Math.random()}`, name, arguments: "{}" });
  if (result.status !== "ok") throw new Error(result.message);
  return JSON.parse(String(result.output)) as { pid: number; ppid: number };
}

describe("closing upstream servers", () => {
  it("leaves no orphans: the wrapper, the server behind it and what the server started", async () => {
    // Like `npx`: a shell that starts the real server as a child and stays around
    // (the trailing `; :` keeps sh from exec-ing node in its place).
    const script = `"${process.execPath}" --import "${tsxLoader}" "${dynamicServerPath}"; :`;

    /** The parent pid of a process, from /proc. */
    function parentOf(pid: number): number {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    }
    const { log } = memoryLog();
    const upstreams = await connectMcpServers(
      { servers: { wrapped: { command: "/bin/sh", args: ["-c", script] } } },
      { log },
    );
    const checkpoint = createLiveCheckpoint({
      tools: () => upstreams.tools(),
      policy: allow,
      // About servers, not taint: their results must not turn the allowed calls into asks.
      taint: { writes: "allow" },
      events: createMemoryEventSink(),
    });
    // The group leader is docket's watchdog; the wrapper is its child, the server the wrapper's.
    const leaderPid = upstreams.status()[0]?.pid as number;
    const server = await whoami(checkpoint, "wrapped__whoami");
    const wrapperPid = server.ppid;
    expect(parentOf(wrapperPid)).toBe(leaderPid);
    expect(server.pid).not.toBe(wrapperPid);
    const started = await checkpoint.dispatch({
      id: "spawn",
      name: "wrapped__spawn_child",
      arguments: "{}",
    });
    const grandchild = (JSON.parse(String(started.output)) as { pid: number }).pid;
    for (const pid of [leaderPid, wrapperPid, server.pid, grandchild]) {
      expect(isAlive(pid)).toBe(true);
    }

    await upstreams.close();
    for (const pid of [leaderPid, wrapperPid, server.pid, grandchild]) {
      await waitFor(() => !isAlive(pid), 3_000, `pid ${pid} to end`);
    }
    expect(upstreams.status()[0]?.state).toBe("closed");
  });

  it("refuses calls after close and fails at start when a server cannot start", async () => {
    const { log } = memoryLog();
    const upstreams = await connectMcpServers(
      { servers: { everything: everythingServer() } },
      { log },
    );
    const checkpoint = createLiveCheckpoint({
      tools: () => upstreams.tools(),
      policy: allow,
      // About servers, not taint: their results must not turn the allowed calls into asks.
      taint: { writes: "allow" },
      events: createMemoryEventSink(),
    });
    const pid = upstreams.status()[0]?.pid as number;
    await upstreams.close();
    expect(isAlive(pid)).toBe(false);
    const after = await checkpoint.dispatch({
      id: "late",
      name: "everything__echo",
      arguments: '{"message":"x"}',
    });
    expect(after).toMatchObject({ status: "failed" });
    expect(after.message).toContain("has been closed");

    await expect(
      connectMcpServers(
        {
          servers: {
            ok: everythingServer(),
            missing: { command: "/nonexistent/mcp-server" },
          },
        },
        { log },
      ),
    ).rejects.toThrow(/MCP server "missing" could not be started/);
  });
});
