import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import type { ToolResult } from "../../src/checkpoint/tool-result.js";
import { docketProtection } from "../../src/cli/docket-protection.js";
import { connectMcpServers } from "../../src/mcp/connect-mcp-servers.js";
import { createPolicyEngine } from "../../src/policy/policy-engine.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { filesystemBin } from "./support/mcp-fixtures.js";

// A real MCP filesystem server given the whole workspace, under a policy that allows every tool:
// docket's self-protection vote still refuses any call whose arguments name docket's files, before
// the upstream sees it.

let ws: string;
let store: Store;
let upstreams: Awaited<ReturnType<typeof connectMcpServers>>;
let dispatch: (name: string, args: unknown) => Promise<ToolResult>;

beforeAll(async () => {
  ws = await realpath(await mkdtemp(join(tmpdir(), "docket-mcp-self-")));
  await mkdir(join(ws, ".docket"));
  await writeFile(join(ws, ".docket", "docket.db"), "store");
  await writeFile(join(ws, "docket.yaml"), "policy: {}\n");
  await writeFile(join(ws, "README.md"), "hello\n");
  upstreams = await connectMcpServers(
    { servers: { files: { command: filesystemBin, args: [ws] } } },
    { log: () => {} },
  );
  store = await openStore(`sqlite:${join(ws, ".docket", "audit.db")}`);
  const layers = [{ name: "managed", rules: [{ decision: "allow" as const, tool: "*" }] }];
  const policy = await createPolicyEngine({
    layers,
    workspace: ws,
    protection: docketProtection({
      storeUrl: `sqlite:${join(ws, ".docket", "docket.db")}`,
      configFile: join(ws, "docket.yaml"),
      layers,
      workspace: ws,
      cwd: ws,
    }),
  });
  const checkpoint = createCheckpoint({ tools: upstreams.tools(), store, policy });
  let n = 0;
  dispatch = (name, args) =>
    checkpoint.dispatch({ id: `m${++n}`, name, arguments: JSON.stringify(args) });
}, 60_000);

afterAll(async () => {
  await upstreams?.close();
  await store?.close();
  await rm(ws, { recursive: true, force: true });
});

describe("MCP tools cannot reach docket's files", { timeout: 60_000 }, () => {
  it("denies reads, writes and moves naming them; other files go through", async () => {
    const denied = [
      await dispatch("files__read_text_file", { path: join(ws, "docket.yaml") }),
      await dispatch("files__read_text_file", { path: join(ws, "sub", "..", "DOCKET.YAML") }),
      await dispatch("files__write_file", { path: join(ws, ".docket", "docket.db"), content: "" }),
      await dispatch("files__move_file", {
        source: join(ws, "README.md"),
        destination: join(ws, "docket.yaml"),
      }),
      await dispatch("files__list_directory", { path: join(ws, ".docket") }),
    ];
    for (const result of denied) {
      expect(result, JSON.stringify(result)).toMatchObject({ status: "refused", reason: "denied" });
      expect((result as { message: string }).message).toContain("docket:self-protection");
    }
    expect(await readFile(join(ws, ".docket", "docket.db"), "utf8")).toBe("store");
    expect(await readFile(join(ws, "docket.yaml"), "utf8")).toBe("policy: {}\n");
    expect(await dispatch("files__read_text_file", { path: join(ws, "README.md") })).toMatchObject({
      status: "ok",
      output: expect.stringContaining("hello"),
    });
  });
});
