import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { approvalIdFor } from "../../src/approval/decide-approval.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { type ConsoleFixture, directory, startConsole, TOKENS } from "./console-fixture.js";

// The console over real HTTP on 127.0.0.1, in front of a real SQLite store, with requests a real
// checkpoint left pending. Every guard is attacked here; the browser test shows the flows.

const XSS_ARG = `<img src=x onerror="alert('arg')">`;
const XSS_RESULT = `<script>alert("result")</script>`;

let f: ConsoleFixture;
let sessionId: string;
const ran: unknown[] = [];
let dispatch: (callId: string, args: { order_id: string; amount: number }) => Promise<unknown>;

async function pending(callId: string, order = callId): Promise<string> {
  await dispatch(callId, { order_id: order, amount: 200 });
  return approvalIdFor(sessionId, callId);
}

interface Browser {
  cookie?: string;
}

async function request(
  path: string,
  {
    as,
    method = "GET",
    form,
    headers = {},
  }: {
    as?: Browser;
    method?: string;
    form?: Record<string, string>;
    headers?: Record<string, string>;
  } = {},
) {
  return fetch(`${f.api.url}${path}`, {
    method,
    redirect: "manual",
    headers: {
      ...(as?.cookie ? { cookie: as.cookie } : {}),
      ...(form ? { "content-type": "application/x-www-form-urlencoded", origin: f.api.url } : {}),
      ...headers,
    },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
}

async function signIn(token: string): Promise<Browser> {
  const res = await request("/console/sign-in", { method: "POST", form: { token } });
  expect(res.status).toBe(303);
  const cookie = res.headers.get("set-cookie") ?? "";
  return { cookie: cookie.split(";")[0] ?? "" };
}

async function csrfOf(as: Browser): Promise<string> {
  const page = await (await request("/console/", { as })).text();
  return /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
}

async function decide(as: Browser, id: string, form: Record<string, string>): Promise<string> {
  const res = await request(`/console/approvals/${id}/decision`, {
    as,
    method: "POST",
    form: { _csrf: await csrfOf(as), ...form },
  });
  expect(res.status).toBe(303);
  const page = await (await request("/console/", { as })).text();
  return /<p class="flash" role="status">([^<]*)<\/p>/.exec(page)?.[1] ?? "";
}

beforeAll(async () => {
  f = await startConsole("http");
  sessionId = (await f.store.createSession({ principal: "agent", configHash: "t" })).id;
  const refund = defineTool({
    name: "issue_refund",
    description: "Refund an order.",
    input: z.object({ order_id: z.string(), amount: z.number() }),
    writes: true,
    handler: (args) => {
      ran.push(args);
      return { refunded: args.amount, note: XSS_RESULT };
    },
  });
  const approvals = createDurableApprover({
    store: f.store,
    directory,
    mode: "suspend",
    defaultApprovers: ["role:lead"],
  });
  const checkpoint = createCheckpoint({ tools: [refund], store: f.store, approvals });
  dispatch = (callId, args) =>
    checkpoint.dispatch(
      { id: callId, name: "issue_refund", arguments: JSON.stringify(args) },
      { sessionId },
    );
});

afterAll(async () => {
  await f?.close();
});

describe("the web console over HTTP", () => {
  it("shows nothing without signing in", async () => {
    await pending("unsigned-1");
    for (const path of ["/console/", "/console/sessions", `/console/sessions/${sessionId}`]) {
      const res = await request(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get("location")).toBe("/console/sign-in");
    }
    expect((await request("/console/events")).status).toBe(401);
    const forged = await request(`/console/approvals/x/decision`, {
      method: "POST",
      form: { decision: "approve" },
      headers: { cookie: "docket_console=made-up" },
    });
    expect(forged.status).toBe(401);
    const signInPage = await (await request("/console/sign-in")).text();
    expect(signInPage).not.toContain("issue_refund");
  });

  it("signs in with an approver's token only, into an HttpOnly, SameSite=Strict, expiring cookie", async () => {
    const wrong = await request("/console/sign-in", { method: "POST", form: { token: "guess" } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect(await wrong.text()).toContain("That token matches no approver.");

    const right = await request("/console/sign-in", {
      method: "POST",
      form: { token: TOKENS.bob },
    });
    expect(right.status).toBe(303);
    const cookie = right.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^docket_console=[\w-]{43};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toMatch(/Max-Age=28800/);
    expect(cookie).toContain("Path=/console");
    const page = await (
      await request("/console/", { as: { cookie: cookie.split(";")[0] } })
    ).text();
    expect(page).toContain("Signed in as <b>bob</b>");
  });

  it("refuses a foreign Host (DNS rebinding) and sends a strict CSP without inline script", async () => {
    const port = new URL(f.api.url).port;
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port,
          path: "/console/sign-in",
          headers: { host: `evil.example:${port}` },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(rebound).toBe(421);
    const apiRebound = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port,
          path: "/approvals",
          headers: { host: `evil.example:${port}`, authorization: `Bearer ${TOKENS.bob}` },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(apiRebound).toBe(421);
    const page = await request("/console/sign-in");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const text = await page.text();
    expect(text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(text).not.toMatch(/\son[a-z]+=/i);
    expect(text).not.toMatch(/https?:\/\//);
  });

  it("refuses a cross-site POST and a form without the session's token, deciding nothing", async () => {
    const id = await pending("csrf-1");
    const bob = await signIn(TOKENS.bob);
    const token = await csrfOf(bob);
    const crossSite = await request(`/console/approvals/${id}/decision`, {
      as: bob,
      method: "POST",
      form: { _csrf: token, decision: "approve" },
      headers: { origin: "http://evil.example", "sec-fetch-site": "cross-site" },
    });
    expect(crossSite.status).toBe(403);
    const noToken = await request(`/console/approvals/${id}/decision`, {
      as: bob,
      method: "POST",
      form: { decision: "approve" },
    });
    expect(noToken.status).toBe(403);
    expect((await f.store.getApproval(id))?.status).toBe("pending");
  });

  it("escapes hostile tool names, arguments and results", async () => {
    const id = await pending("xss-1", XSS_ARG);
    const bob = await signIn(TOKENS.bob);
    const inbox = await (await request("/console/", { as: bob })).text();
    expect(inbox).toContain(id);
    expect(inbox).not.toContain("<img src=x");
    expect(inbox).toContain("&lt;img src=x onerror=");
    expect(await decide(bob, id, { decision: "approve" })).toContain("Approved once");
    await dispatch("xss-1", { order_id: XSS_ARG, amount: 200 });
    const session = await (await request(`/console/sessions/${sessionId}`, { as: bob })).text();
    expect(session).toContain("&lt;script&gt;alert(");
    expect(session).not.toContain(XSS_RESULT);
    expect(session).not.toContain("<img src=x");
  });

  it("keeps every channel's rules: never the requester, roles, a reason to deny, first decision wins", async () => {
    const id = await pending("rules-1");
    const agent = await signIn(TOKENS.agent);
    const agentPage = await (await request(`/console/approvals/${id}`, { as: agent })).text();
    expect(agentPage).toContain("agent requested this call and cannot decide it");
    expect(agentPage).not.toContain('value="approve"');
    expect(await decide(agent, id, { decision: "approve" })).toContain(
      "agent requested this call and cannot approve or deny it",
    );
    const carol = await signIn(TOKENS.carol);
    expect(await decide(carol, id, { decision: "approve" })).toContain("it needs role:lead");

    const bob = await signIn(TOKENS.bob);
    expect(await decide(bob, id, { decision: "deny", reason: "  " })).toContain(
      "A denial needs a reason",
    );
    expect(await decide(bob, id, { decision: "approve" })).toContain("Approved once");
    const dave = await signIn(TOKENS.dave);
    expect(await decide(dave, id, { decision: "deny", reason: "no" })).toContain(
      "already approved by bob",
    );
    expect((await f.store.getApproval(id))?.decidedBy).toBe("bob");
  });

  it("shows a write_file's diff and the untrusted-content note", async () => {
    const args = { content: "line one\n<b>two</b>\n", path: "notes/todo.md" };
    const write = await f.store.createApproval({
      sessionId,
      callId: "write-1",
      tool: "write_file",
      canonicalArgs: JSON.stringify(args),
      argsHash: "ab".repeat(32),
      requestedBy: "agent",
      reason:
        "after fetch_url https://evil.example/page (call c4): rule small-writes allows it, but a write that follows untrusted content needs a human's approval",
    });
    const bob = await signIn(TOKENS.bob);
    const page = await (await request(`/console/approvals/${write.id}`, { as: bob })).text();
    expect(page).toContain("Writes <code>notes/todo.md</code>");
    expect(page).toContain('<span class="add">+line one</span>');
    expect(page).toContain('<span class="add">+&lt;b&gt;two&lt;/b&gt;</span>');
    expect(page).toContain(
      "Untrusted content came before this call:</b> after fetch_url https://evil.example/page (call c4)",
    );
  });

  it("streams new requests as cards rendered for the viewer, escaped", async () => {
    const agent = await signIn(TOKENS.agent);
    const controller = new AbortController();
    const res = await fetch(`${f.api.url}/console/events?have=`, {
      headers: { cookie: agent.cookie ?? "" },
      signal: controller.signal,
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const id = await pending("stream-1", XSS_ARG);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    while (!text.includes(`"id":"${id}"`)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    const event = text.split("\n\n").find((e) => e.includes(`"id":"${id}"`)) ?? "";
    expect(event).toMatch(/^event: add$/m);
    const data = JSON.parse(/^data: (.*)$/m.exec(event)?.[1] ?? "{}") as { html: string };
    expect(data.html).toContain("agent requested this call and cannot decide it");
    expect(data.html).not.toContain('value="approve"');
    expect(data.html).not.toContain("<img src=x");
  });

  it("signs out only with the session's form token, and the cookie then opens nothing", async () => {
    const bob = await signIn(TOKENS.bob);
    const forged = await request("/console/sign-out", { as: bob, method: "POST", form: {} });
    expect(forged.status).toBe(303);
    expect((await request("/console/", { as: bob })).status).toBe(200);
    const out = await request("/console/sign-out", {
      as: bob,
      method: "POST",
      form: { _csrf: await csrfOf(bob) },
    });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toMatch(/^docket_console=;/);
    expect((await request("/console/", { as: bob })).status).toBe(303);
    expect((await request("/console/events", { as: bob })).status).toBe(401);
  });

  it("rate-limits sign-in: past the limit a minute even the right token waits", async () => {
    // The fixture allows 40 attempts a minute; earlier tests used some of them.
    let status = 0;
    for (let i = 0; i < 41 && status !== 429; i += 1) {
      status = (await request("/console/sign-in", { method: "POST", form: { token: `g${i}` } }))
        .status;
    }
    expect(status).toBe(429);
    const res = await request("/console/sign-in", { method: "POST", form: { token: TOKENS.bob } });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(res.headers.get("set-cookie")).toBeNull();
  });
});
