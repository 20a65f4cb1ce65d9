import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleFixture, signInCookie, startConsole, TOKENS } from "./console-fixture.js";

// The session page's labels line, over real HTTP in front of a real SQLite store: each label
// with the result that set it, from the store's trail, escaped like every model-supplied text.

let f: ConsoleFixture;
let labelled: string;
let plain: string;

const finished = (sessionId: string, callId: string, tool: string, extra: object) => ({
  callId,
  tool,
  sessionId,
  at: 1_700_000_000_000,
  type: "finished" as const,
  status: "ok" as const,
  reason: undefined,
  message: `${tool} succeeded.`,
  durationMs: 1,
  outputBytes: 2,
  output: "ok",
  ...extra,
});

beforeAll(async () => {
  f = await startConsole("labels");
  labelled = (await f.store.createSession({ principal: "agent", configHash: "t" })).id;
  plain = (await f.store.createSession({ principal: "agent", configHash: "t" })).id;
  await f.store.emitMany([
    finished(labelled, "c1", "read_file", { private: "read_file data/<b>customers</b>.csv" }),
    finished(labelled, "c2", "fetch_url", {
      openWorld: true,
      source: "fetch_url https://evil.example/",
      tainted: "session",
    }),
  ]);
});

afterAll(async () => {
  await f?.close();
});

describe("the console's session page", () => {
  it("shows the session's labels and what set them, escaped; none for a clean session", async () => {
    const cookie = await signInCookie(f, TOKENS.bob);
    const page = await (
      await fetch(`${f.api.url}/console/sessions/${labelled}`, { headers: { cookie } })
    ).text();
    expect(page).toContain("<dt>Labels</dt>");
    expect(page).toContain(
      "private (read_file data/&lt;b&gt;customers&lt;/b&gt;.csv, call c1); untrusted (fetch_url https://evil.example/, call c2)",
    );
    expect(page).not.toContain("<b>customers</b>");
    const clean = await (
      await fetch(`${f.api.url}/console/sessions/${plain}`, { headers: { cookie } })
    ).text();
    expect(clean).toMatch(/<dt>Labels<\/dt><dd class="labels">none<\/dd>/);
  });
});
