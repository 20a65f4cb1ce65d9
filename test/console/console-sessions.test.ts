import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callEvents } from "../store/support/call-events.js";
import { type ConsoleFixture, signInCookie, startConsole, TOKENS } from "./console-fixture.js";

// The sessions list over real HTTP, in front of a real SQLite store: each row says how many calls
// its session made, counted in one read of the store (no cap at a page of calls).

let f: ConsoleFixture;
const ids: string[] = [];

beforeAll(async () => {
  f = await startConsole("sessions");
  for (const title of ["busy", "quiet", "empty"]) {
    ids.push((await f.store.createSession({ principal: "agent", configHash: "t", title })).id);
  }
  const [busy, quiet] = ids as [string, string];
  await f.store.emitMany([
    ...Array.from({ length: 250 }, (_, i) =>
      callEvents({ sessionId: busy, callId: `b${i}` }),
    ).flat(),
    ...callEvents({ sessionId: quiet, callId: "q1", outcome: "refused" }),
    ...callEvents({ sessionId: quiet, callId: "q2", outcome: "open" }),
  ]);
});

afterAll(async () => {
  await f?.close();
});

function callsCell(page: string, sessionId: string): string | undefined {
  const row = page.split("<tr>").find((r) => r.includes(`/console/sessions/${sessionId}"`));
  return row ? /<td>([^<]*)<\/td><\/tr>/.exec(row)?.[1] : undefined;
}

describe("the console's sessions list", () => {
  it("shows each session's exact number of calls, past any page size", async () => {
    const cookie = await signInCookie(f, TOKENS.bob);
    const res = await fetch(`${f.api.url}/console/sessions`, { headers: { cookie } });
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(ids.map((id) => callsCell(page, id))).toEqual(["250", "2", "0"]);
    expect(page).not.toContain("250+");
  });
});
