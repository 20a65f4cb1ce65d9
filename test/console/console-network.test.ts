import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkConnection } from "../../src/sandbox/network/network-connection.js";
import { callEvents } from "../store/support/call-events.js";
import { type ConsoleFixture, signInCookie, startConsole, TOKENS } from "./console-fixture.js";

// A call's sandbox network connections on its session page, over real HTTP in front of a real
// SQLite store; a host name is hostile text like everything else in the trail.

let f: ConsoleFixture;
let sessionId: string;

const allowed: NetworkConnection = {
  kind: "connect",
  host: "registry.npmjs.org",
  port: 443,
  decision: "allow",
  rule: "project:allow:registry.npmjs.org",
  status: "closed",
  address: "104.16.2.35",
  bytesOut: 2210,
  bytesIn: 48312,
  durationMs: 212.4,
};
const refused: NetworkConnection = {
  kind: "http",
  host: "<script>alert(1)</script>.example",
  port: 80,
  decision: "ask",
  rule: "project:ask:*.example",
  approval: "timed_out",
  status: "refused",
  reason: "ask timed out",
  bytesOut: 0,
  bytesIn: 0,
  durationMs: 60000,
};

beforeAll(async () => {
  f = await startConsole("network");
  sessionId = (await f.store.createSession({ principal: "agent", configHash: "t" })).id;
  const [requested, ...rest] = callEvents({ sessionId, callId: "n1" });
  if (requested === undefined) throw new Error("no events");
  const base = { callId: "n1", tool: requested.tool, sessionId, at: requested.at + 1 };
  await f.store.emitMany([
    requested,
    { ...base, type: "log", message: "network connection", data: allowed },
    { ...base, type: "log", message: "network connection", data: refused },
    { ...base, type: "log", message: "a handler's own line", data: null },
    ...rest,
  ]);
});

afterAll(async () => {
  await f?.close();
});

describe("the console's call timeline", () => {
  it("spells out each network connection of a call, escaped", async () => {
    const cookie = await signInCookie(f, TOKENS.bob);
    const res = await fetch(`${f.api.url}/console/sessions/${sessionId}`, { headers: { cookie } });
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain(
      "<b>network</b>: connect <code>registry.npmjs.org:443</code>, allow by project:allow:registry.npmjs.org; <b>closed</b> via 104.16.2.35, 2210 bytes out, 48312 in, 212.4 ms",
    );
    expect(page).toContain("(ask: timed out); <b>refused</b>: ask timed out");
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;.example:80");
    expect(page).not.toContain("<script>alert(1)</script>");
    expect(page).toContain("<b>note</b>: a handler&#39;s own line");
  });
});
