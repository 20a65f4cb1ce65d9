import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mapHostTool } from "../../src/hook/map-host-tool.js";
import { startFakeChatAgent } from "../support/fake-providers/fake-chat-agent.js";
import type { FakeServer } from "../support/fake-providers/fake-server.js";
import {
  type HostWorkspace,
  hostWorkspace,
  opencodeBinary,
  readHostTrail,
  runOpencode,
} from "../support/host-e2e.js";

// The real opencode (opencode-ai 1.18.33, its native binary), pointed at a fake Chat Completions
// API through a provider in OPENCODE_CONFIG_CONTENT, asks for two bash calls. docket is its
// plugin, as `docket hook install opencode` writes it: `tool.execute.before` throws unless docket
// answers allow. The same run's tool list is checked against docket's table for opencode.

let w: HostWorkspace;
let fake: FakeServer;
beforeAll(async () => {
  w = await hostWorkspace("opencode");
  fake = await startFakeChatAgent("bash", [
    { command: "touch denied-effect", description: "touch" },
    { command: "mkdir allowed-effect", description: "mkdir" },
  ]);
});
afterAll(async () => {
  await fake?.close();
  await w?.remove();
});

describe("opencode with docket as its plugin", () => {
  it("runs the bash call docket allows, not the one it denies, both on the trail; every tool it offers is mapped", async () => {
    expect(existsSync(opencodeBinary()), `${opencodeBinary()}: npm install`).toBe(true);
    const { ws } = w;
    await runOpencode(w, fake.url, "make the two things");
    expect(existsSync(join(ws, "denied-effect"))).toBe(false);
    expect(existsSync(join(ws, "allowed-effect"))).toBe(true);

    const trail = await readHostTrail(ws);
    expect(trail.sessions.map((session) => session.principal)).toEqual(["opencode"]);
    expect(trail.statusByRule()).toEqual({ "no-touch": "refused", "mkdir-ok": "ok" });
    expect(trail.verified).toBe(true);
    // The model was told docket's reason for the refusal.
    expect(JSON.stringify(fake.requests.map((r) => r.body))).toContain("rule no-touch");

    const offered = [
      ...new Set(
        fake.requests.flatMap((request) =>
          (
            ((request.body ?? {}) as { tools?: { function?: { name?: string } }[] }).tools ?? []
          ).map((tool) => tool.function?.name ?? ""),
        ),
      ),
    ].sort();
    expect(offered).toContain("bash");
    const unmapped = offered.filter((tool) => mapHostTool("opencode", tool) === undefined);
    expect(unmapped, offered.join(", ")).toEqual([]);
  }, 300_000);
});
