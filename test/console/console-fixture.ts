import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import {
  type ApprovalsHttpServer,
  serveApprovals,
} from "../../src/approval/approvals-http-server.js";
import { createApproverDirectory, hashToken } from "../../src/approval/approver-directory.js";
import { createWebConsole, type WebConsole } from "../../src/console/create-web-console.js";
import { createInboxFeed } from "../../src/console/inbox-feed.js";
import { createSignInLimiter } from "../../src/console/sign-in-limiter.js";
import { FailedAttemptLimiter } from "../../src/shared/failed-attempt-limiter.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";

/** Approvers of the console tests: bob and dave lead, carol supports, the agent has a token too. */
export const TOKENS = {
  bob: "bob-token-0123456789",
  carol: "carol-token-0123456789",
  dave: "dave-token-0123456789",
  agent: "agent-token-0123456789",
} as const;

export const directory = createApproverDirectory(
  {
    bob: { roles: ["lead"], token_sha256: hashToken(TOKENS.bob) },
    carol: { roles: ["support"], token_sha256: hashToken(TOKENS.carol) },
    dave: { roles: ["lead"], token_sha256: hashToken(TOKENS.dave) },
    agent: { roles: ["lead"], token_sha256: hashToken(TOKENS.agent) },
  },
  {},
);

/** A real store in a temp dir, and `docket serve`'s server (API and console) on 127.0.0.1. */
export interface ConsoleFixture {
  readonly dir: string;
  readonly store: Store;
  readonly api: ApprovalsHttpServer;
  readonly web: WebConsole;
  close(): Promise<void>;
}

export async function startConsole(
  name: string,
  { attempts = new FailedAttemptLimiter({ maxFailures: 40 }) } = {},
): Promise<ConsoleFixture> {
  const dir = await mkdtemp(join(tmpdir(), `docket-console-${name}-`));
  const store = await openStore(`sqlite:${join(dir, "docket.db")}`);
  // One failed-attempt limiter for the console and the API, as `docket serve` shares the
  // process's; the fixture's own, so that one test file's wrong tokens do not throttle another's.
  const web = createWebConsole({
    attempts,
    store,
    directory,
    feed: createInboxFeed(store, { intervalMs: 100 }),
    where: { project: "docket.yaml", workspace: dir },
    // Tests sign in often from one address; the limit itself is tested against this one.
    limiter: createSignInLimiter({ max: 40 }),
  });
  const api = await serveApprovals({
    store,
    directory,
    limiter: attempts,
    fallback: getRequestListener(web.fetch, { overrideGlobalObjects: false }),
  });
  return {
    dir,
    store,
    api,
    web,
    async close() {
      web.close();
      api.server.closeAllConnections();
      await api.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Sign in to the fixture's console with a token; the session cookie to send with requests. */
export async function signInCookie(f: ConsoleFixture, token: string): Promise<string> {
  const signIn = await fetch(`${f.api.url}/console/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: f.api.url },
    body: `token=${token}`,
  });
  return (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}
