import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { McpServerInput } from "../../../src/mcp/mcp-config.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
/** tsx's loader, resolved from this repository so children can run TypeScript from anywhere. */
export const tsxLoader = import.meta.resolve("tsx");
export const everythingBin = `${repo}node_modules/.bin/mcp-server-everything`;
export const filesystemBin = `${repo}node_modules/.bin/mcp-server-filesystem`;
export const dynamicServerPath = fileURLToPath(new URL("./dynamic-server.ts", import.meta.url));
export const gatewayMainPath = fileURLToPath(new URL("./gateway-main.ts", import.meta.url));

/** server-everything over stdio, as an `mcp.servers` entry. */
export function everythingServer(extra: Partial<McpServerInput> = {}): McpServerInput {
  return { command: everythingBin, args: ["stdio"], ...extra };
}

/** The test server of dynamic-server.ts, as an `mcp.servers` entry. */
export function dynamicServer(extra: Partial<McpServerInput> = {}): McpServerInput {
  return { command: process.execPath, args: ["--import", tsxLoader, dynamicServerPath], ...extra };
}

/**
 * Whether a process is alive: in /proc and not a zombie (an orphan that was killed but not yet
 * reaped is not alive). Falls back to `kill(pid, 0)` off Linux.
 */
export function isAlive(pid: number): boolean {
  if (process.platform === "linux") {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Wait until `check` holds, polling, or throw after `timeoutMs`. */
export async function waitFor(
  check: () => boolean,
  timeoutMs = 5_000,
  what = "condition",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A collecting logger for connectMcpServers. */
export function memoryLog() {
  const lines: { level: string; server: string; message: string; tool?: string }[] = [];
  return { lines, log: (event: (typeof lines)[number]) => void lines.push(event) };
}
