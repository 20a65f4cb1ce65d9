import { afterEach, describe, expect, it } from "vitest";
import { createWebConsole } from "../../src/console/create-web-console.js";
import { createSignInLimiter } from "../../src/console/sign-in-limiter.js";
import {
  FailedAttemptLimiter,
  processAttemptLimiter,
} from "../../src/shared/failed-attempt-limiter.js";
import { type ConsoleFixture, directory, startConsole, TOKENS } from "./console-fixture.js";

// Issue 35: every token check of a process shares one failed-attempt limiter, so a guesser
// cannot spread guesses over the console's sign-in and the approvals API (or the gateway).

let fixture: ConsoleFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function signIn(f: ConsoleFixture, token: string): Promise<Response> {
  return fetch(`${f.api.url}/console/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: f.api.url },
    body: new URLSearchParams({ token }).toString(),
  });
}

const listApprovals = (f: ConsoleFixture, token: string) =>
  fetch(`${f.api.url}/approvals`, { headers: { authorization: `Bearer ${token}` } });

describe("the console's sign-in and the approvals API share one failed-attempt limiter", () => {
  it("wrong bearer tokens at the API throttle the console's sign-in, the right token included", async () => {
    fixture = await startConsole("limiter-api", {
      attempts: new FailedAttemptLimiter({ maxFailures: 5 }),
    });
    expect((await signIn(fixture, TOKENS.bob)).status).toBe(303);
    for (let i = 0; i < 5; i += 1) {
      expect((await listApprovals(fixture, `guess-${i}-0123456789abcdef`)).status).toBe(401);
    }
    expect((await listApprovals(fixture, TOKENS.bob)).status).toBe(429);
    const refused = await signIn(fixture, TOKENS.bob);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("set-cookie")).toBeNull();
    expect(await refused.text()).toContain("Too many wrong tokens");
  });

  it("wrong tokens typed into the console throttle the API", async () => {
    fixture = await startConsole("limiter-console", {
      attempts: new FailedAttemptLimiter({ maxFailures: 5 }),
    });
    expect((await listApprovals(fixture, TOKENS.bob)).status).toBe(200);
    for (let i = 0; i < 5; i += 1) {
      const wrong = await signIn(fixture, `guess-${i}-0123456789abcdef`);
      expect(wrong.status).toBe(401);
      expect(await wrong.text()).toContain("That token matches no approver.");
    }
    const api = await listApprovals(fixture, TOKENS.bob);
    expect(api.status).toBe(429);
    expect(Number(api.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await signIn(fixture, TOKENS.carol)).status).toBe(429);
  });

  it("by default the console counts in the process's limiter, the one the API and the gateway use", async () => {
    fixture = await startConsole("limiter-process", { attempts: processAttemptLimiter() });
    // A console built without `attempts` (its per-address pace raised out of the way): its wrong
    // tokens land in the process's limiter.
    const web = createWebConsole({
      store: fixture.store,
      directory,
      limiter: createSignInLimiter({ max: 100 }),
    });
    try {
      const request = (token: string) =>
        web.app.request(
          "http://127.0.0.1/console/sign-in",
          {
            method: "POST",
            headers: {
              "content-type": "application/x-www-form-urlencoded",
              origin: "http://127.0.0.1",
              host: "127.0.0.1",
            },
            body: new URLSearchParams({ token }).toString(),
          },
          { incoming: { socket: { remoteAddress: "192.0.2.7" } } } as never,
        );
      expect(processAttemptLimiter().admit({ address: "192.0.2.7", token: undefined })).toEqual({
        status: "allowed",
      });
      for (let i = 0; i < 10; i += 1) expect((await request(`wrong-${i}`)).status).toBe(401);
      expect(processAttemptLimiter().admit({ address: "192.0.2.7", token: undefined }).status).toBe(
        "throttled",
      );
      expect((await request(TOKENS.bob)).status).toBe(429);
    } finally {
      web.close();
    }
  });
});
