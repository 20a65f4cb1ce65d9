import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel, type ScriptedModel } from "../../src/model/scripted-model.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { type ConsoleFixture, directory, startConsole, TOKENS } from "./console-fixture.js";

// Debian's Chromium, driven by playwright-core, against `docket serve`'s console on 127.0.0.1:
// a scripted agent's runs wait on asks, and a person decides them in the browser.

const CHROMIUM = "/usr/bin/chromium";
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
const XSS_ARG = `<img src=x onerror="window.__pwned='arg'">`;
const XSS_RESULT = `<script>window.__pwned='result'</script><img src=x onerror="window.__pwned='result'">`;
const DENIAL = "Refunds over 150 USD need the order's photos first.";

let f: ConsoleFixture;
let browser: Browser;
let page: Page;
let evil: Server;
const ran: unknown[] = [];

const refund = defineTool({
  name: "issue_refund",
  description: "Refund an order.",
  input: z.object({ order_id: z.string(), amount: z.number(), note: z.string() }),
  writes: true,
  handler: (args) => {
    ran.push(args);
    return { refunded: args.amount, customer_said: XSS_RESULT };
  },
});

/** One scripted run: a refund request (asked: it writes), then the model's last words. */
function startRun(callId: string, args: Record<string, unknown>, done: string) {
  const model: ScriptedModel = createScriptedModel({
    source: "console-browser",
    turns: [
      {
        text: "Refunding.",
        toolCalls: [{ id: callId, name: "issue_refund", arguments: JSON.stringify(args) }],
      },
      { text: done, toolCalls: [] },
    ],
  });
  const harness = createHarness({
    model,
    tools: [refund],
    store: f.store,
    approvals: createDurableApprover({
      store: f.store,
      directory,
      mode: "wait",
      pollMs: 100,
      defaultApprovers: ["role:lead"],
    }),
  });
  return { model, result: harness.run(`Refund ${String(args.order_id)}.`) };
}

function card(text: string) {
  return page.locator("article[data-approval]", { hasText: text });
}

// The screenshots go to docs/ when asked (DOCKET_UPDATE_SCREENSHOTS=1), else to a temp folder,
// so a test run does not leave the work tree changed; they are taken either way.
const updateDocs = process.env.DOCKET_UPDATE_SCREENSHOTS === "1";
const shotDir = updateDocs
  ? join(process.cwd(), "docs")
  : mkdtempSync(join(tmpdir(), "docket-shots-"));
const docs = (name: string) => join(shotDir, name);

beforeAll(async () => {
  f = await startConsole("browser");
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const context = await browser.newContext({ viewport: { width: 900, height: 1100 } });
  page = await context.newPage();
  page.on("dialog", (dialog) => {
    throw new Error(`a dialog opened: ${dialog.message()}`);
  });
  // Another site on the same machine: a different port is a different origin (same site).
  evil = createServer((req, res) => {
    const target = new URL(req.url ?? "/", "http://x").searchParams.get("target") ?? "";
    res.writeHead(200, { "content-type": "text/html" });
    res.end(
      `<form id="f" method="post" action="${target}"><input name="decision" value="approve"><input name="_csrf" id="t"><button id="go">win a prize</button></form>`,
    );
  });
  await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (evil ? evil.close(() => resolve()) : resolve()));
  await f?.close();
  if (!updateDocs) rmSync(shotDir, { recursive: true, force: true });
});

describe.skipIf(!existsSync(CHROMIUM))("the web console in Chromium", () => {
  it("refuses a wrong token, then signs bob in", async () => {
    await page.goto(`${f.api.url}/console/`);
    expect(new URL(page.url()).pathname).toBe("/console/sign-in");
    await page.getByLabel("Approver token").fill("not-a-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("matches no approver");
    expect(new URL(page.url()).pathname).toBe("/console/sign-in");
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain("docket_console");

    await page.getByLabel("Approver token").fill(TOKENS.bob);
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/console\/$/);
    expect(await page.textContent("header")).toContain("Signed in as bob");
    const [cookie] = await page.context().cookies();
    expect(cookie).toMatchObject({ name: "docket_console", httpOnly: true, sameSite: "Strict" });
  });

  it("shows a waiting run's request live, and approving it runs the call once", async () => {
    // Strings, not functions: they run in the page, and this project's TS has no DOM types.
    await page.evaluate("window.__sameDocument = true");
    const run = startRun(
      "c_refund",
      { order_id: "SU-88421", amount: 200, note: XSS_ARG },
      "Refunded.",
    );
    const request = card("SU-88421");
    await request.waitFor({ timeout: 20_000 });
    // The page was not reloaded: the marker set before the request existed is still there.
    expect(await page.evaluate("window.__sameDocument")).toBe(true);
    const text = (await request.textContent()) ?? "";
    for (const shown of [
      "issue_refund",
      "Asked by",
      "agent",
      "role:lead",
      "SHA-256",
      "<img src=x onerror=",
      // What the approver decides with (issue 39): the request in its conversation, and where.
      "The user asked: Refund SU-88421.",
      "Projectdocket.yaml (workspace",
    ]) {
      expect(text).toContain(shown);
    }
    expect(await page.locator("#pending-total").textContent()).toBe("1");

    // A write another agent asked for: it appears with its diff; decided elsewhere (dave, over
    // the HTTP API), it leaves, all without a reload.
    const other = await f.store.createSession({ principal: "agent", configHash: "t" });
    const write = await f.store.createApproval({
      sessionId: other.id,
      callId: "c_notes",
      tool: "write_file",
      canonicalArgs: JSON.stringify({
        content: "## Refunds\n- SU-77012: 35 USD\n",
        path: "notes/refunds.md",
      }),
      argsHash: "5e".repeat(32),
      requestedBy: "agent",
      rule: "default:writes",
      reason: "write_file can change things, and no rule allows it, so a human must approve it.",
      approvers: ["role:lead"],
    });
    const writeCard = card("notes/refunds.md");
    await writeCard.waitFor({ timeout: 20_000 });
    expect(await writeCard.locator(".diff .add").allTextContents()).toEqual([
      "+## Refunds",
      "+- SU-77012: 35 USD",
    ]);
    expect(
      await page.locator("article[data-approval]").evaluateAll((els) => els.map((e) => e.id)),
    ).toEqual([write.id, (await request.getAttribute("id")) ?? ""]);
    expect(await page.locator("#pending-total").textContent()).toBe("2");
    await page.screenshot({
      path: docs("console-inbox.png"),
      fullPage: true,
      animations: "disabled",
    });
    const byDave = await fetch(`${f.api.url}/approvals/${write.id}/decision`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKENS.dave}`, "content-type": "application/json" },
      body: JSON.stringify({ decision: "deny", reason: "not now" }),
    });
    expect(byDave.status).toBe(200);
    await writeCard.waitFor({ state: "detached", timeout: 20_000 });
    expect(await page.locator("#pending-total").textContent()).toBe("1");
    expect(await page.evaluate("window.__sameDocument")).toBe(true);
    // A phone's width: everything reflows, nothing needs sideways scrolling.
    await page.setViewportSize({ width: 360, height: 800 });
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
    await page.setViewportSize({ width: 900, height: 1100 });

    // With the keyboard: focus the button, press Enter.
    await request.getByRole("button", { name: "Approve once" }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator(".flash").textContent()).toContain("Approved once");
    const result = await run.result;
    expect(result.status).toBe("completed");
    expect(result.text).toBe("Refunded.");
    expect(ran).toHaveLength(1);
    expect(await page.evaluate("window.__pwned")).toBeUndefined();

    // The session's page: the conversation, the timeline with the approver, a verified chain.
    await page.goto(`${f.api.url}/console/sessions/${result.sessionId}`);
    const timeline = (await page.textContent("main")) ?? "";
    expect(timeline).toContain("approved by bob");
    expect(timeline).toContain("finished: ok");
    expect(timeline).toContain("<script>window.__pwned=");
    expect(await page.locator(".badge").textContent()).toContain("✔ Audit chain verified");
    expect(await page.evaluate("window.__pwned")).toBeUndefined();
    await page.screenshot({
      path: docs("console-session.png"),
      fullPage: true,
      animations: "disabled",
    });
  }, 60_000);

  it("refuses a cross-site POST, then a denial's reason reaches the model", async () => {
    await page.goto(`${f.api.url}/console/`);
    const run = startRun(
      "c_big",
      { order_id: "SU-99000", amount: 900, note: "" },
      "I could not refund it.",
    );
    const request = card("SU-99000");
    await request.waitFor({ timeout: 20_000 });
    const id = (await request.getAttribute("id")) ?? "";
    // Even with the session's form token in hand, a form posted from another origin is refused.
    const token = await request.locator('input[name="_csrf"]').first().inputValue();
    // A tab of bob's own browser, so his cookie goes with the post (a different port is the same site).
    const bobsTab = await page.context().newPage();
    const evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/?target=${encodeURIComponent(`${f.api.url}/console/approvals/${id}/decision`)}`;
    await bobsTab.goto(evilUrl);
    await bobsTab.fill("#t", token);
    const [response] = await Promise.all([
      bobsTab.waitForResponse(/decision/),
      bobsTab.click("#go"),
    ]);
    expect(response.status()).toBe(403);
    await bobsTab.close();
    expect((await f.store.getApproval(id))?.status).toBe("pending");

    await request.getByLabel("Reason for denying").fill(DENIAL);
    await request.getByRole("button", { name: "Deny" }).click();
    await expect.poll(() => page.locator(".flash").textContent()).toContain("Denied");
    const result = await run.result;
    expect(result.status).toBe("completed");
    expect(ran).toHaveLength(1);
    const sent = JSON.stringify(run.model.requests.at(-1)?.prompt ?? []);
    expect(sent).toContain(DENIAL);
    const transcript = JSON.stringify(await f.store.loadTranscript(result.sessionId));
    expect(transcript).toContain(DENIAL);
  }, 60_000);
});
