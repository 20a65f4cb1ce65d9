import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleFixture, startConsole, TOKENS } from "./console-fixture.js";

// Debian's Chromium, driven by playwright-core, against the console on 127.0.0.1: an approver
// who never touches the mouse moves between requests, approves and denies each after a
// confirmation, searches the decided view and filters it. Screenshots of the card and the
// decided view go to docs/ when asked (DOCKET_UPDATE_SCREENSHOTS=1), else to a temp folder.

const CHROMIUM = "/usr/bin/chromium";
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"];
const DENIAL = "Send the order's photos first.";

const updateDocs = process.env.DOCKET_UPDATE_SCREENSHOTS === "1";
const shotDir = updateDocs
  ? join(process.cwd(), "docs")
  : mkdtempSync(join(tmpdir(), "docket-shots-"));

let f: ConsoleFixture;
let browser: Browser;
let page: Page;
let refundId: string;
let writeId: string;

const focusedId = () => page.evaluate("document.activeElement && document.activeElement.id");

async function askedIn(sessionId: string, callId: string, tool: string, args: object) {
  await f.store.appendMessage(sessionId, {
    role: "user",
    content: { role: "user", text: "Refund order SU-88421: it arrived broken." },
  });
  await f.store.appendMessage(sessionId, {
    role: "assistant",
    content: {
      role: "assistant",
      text: "The photos show a crushed box; I will refund it and note it.",
      toolCalls: [{ id: callId, name: tool, arguments: JSON.stringify(args) }],
    },
  });
  return f.store.createApproval({
    sessionId,
    callId,
    tool,
    canonicalArgs: JSON.stringify(args),
    argsHash: (callId.length % 10).toString().repeat(64),
    requestedBy: "agent",
    // The refund first, the note a second later: the inbox lists the newest first.
    createdAt: Date.now() - (tool === "issue_refund" ? 1000 : 0),
    rule: tool === "issue_refund" ? "refunds-over-100" : "default:writes",
    reason:
      tool === "issue_refund"
        ? "Refunds over 100 USD need a lead."
        : "write_file can change things, and no rule allows it, so a human must approve it.",
    approvers: ["role:lead"],
    // What the checkpoint records when untrusted content came before the call.
    grantText:
      tool === "issue_refund"
        ? "not offered: after fetch_url https://reviews.example/su-88421 (call c_fetch)"
        : "write_file on notes/refunds.md",
  });
}

beforeAll(async () => {
  f = await startConsole("keyboard");
  const session = await f.store.createSession({ principal: "agent", configHash: "t" });
  refundId = (
    await askedIn(session.id, "c_refund", "issue_refund", {
      amount: 240,
      order_id: "SU-88421",
      reason: "arrived damaged",
    })
  ).id;
  writeId = (
    await askedIn(session.id, "c_note", "write_file", {
      content: "## Refunds\n- SU-88421: 240 USD, box crushed\n",
      path: "notes/refunds.md",
    })
  ).id;
  // Decided earlier: what the decided view lists.
  for (let i = 0; i < 6; i += 1) {
    const old = await f.store.createApproval({
      callId: `c_old_${i}`,
      tool: i % 2 ? "write_file" : "issue_refund",
      canonicalArgs: JSON.stringify({ order_id: `SU-7700${i}`, amount: 20 * (i + 1) }),
      argsHash: String(i).repeat(64),
      requestedBy: i % 3 ? "agent" : "ops-bot",
      rule: "default:writes",
      reason: "a write needs a human",
      createdAt: Date.UTC(2026, 10, 20 + i, 9),
    });
    await f.store.decideApproval(old.id, {
      decision: i % 3 === 2 ? "denied" : "approved",
      by: i % 2 ? "dave" : "bob",
      at: Date.UTC(2026, 10, 20 + i, 9, 5),
      ...(i % 3 === 2 ? { reason: "Not without the photos." } : {}),
    });
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const context = await browser.newContext({ viewport: { width: 1000, height: 1000 } });
  page = await context.newPage();
  page.on("dialog", (dialog) => {
    throw new Error(`a dialog opened: ${dialog.message()}`);
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await f?.close();
  if (!updateDocs) rmSync(shotDir, { recursive: true, force: true });
});

describe.skipIf(!existsSync(CHROMIUM))("the console with the keyboard alone", () => {
  it("signs in, moves with j/k and the arrows, focus visible", async () => {
    await page.goto(`${f.api.url}/console/`);
    await page.getByLabel("Approver token").fill(TOKENS.bob);
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/console\/$/);
    await page.locator("article[data-approval]").first().waitFor();
    await page.keyboard.press("j");
    expect(await focusedId()).toBe(writeId);
    // The focused card is outlined: the focus can be seen.
    const outline = await page.evaluate(
      "getComputedStyle(document.activeElement).outlineStyle + ' ' + getComputedStyle(document.activeElement).outlineWidth",
    );
    expect(outline).toBe("solid 3px");
    await page.keyboard.press("j");
    expect(await focusedId()).toBe(refundId);
    await page.keyboard.press("ArrowUp");
    expect(await focusedId()).toBe(writeId);
    await page.keyboard.press("ArrowDown");
    expect(await focusedId()).toBe(refundId);
    const card = page.locator(`#${refundId}`);
    const text = (await card.textContent()) ?? "";
    for (const shown of [
      "The user asked: Refund order SU-88421: it arrived broken.",
      "The agent said: The photos show a crushed box",
      "refunds-over-100",
      "Refunds over 100 USD need a lead.",
      "SHA-256 of the arguments",
      "Projectdocket.yaml (workspace",
      "Taint⚠ tainted: after fetch_url https://reviews.example/su-88421 (call c_fetch)",
    ]) {
      expect(text).toContain(shown);
    }
    const write = (await page.locator(`#${writeId}`).textContent()) ?? "";
    expect(write).toContain("Taintnone recorded before this request");
    expect(write).toContain("Touchespath: notes/refunds.md");
    await card.screenshot({ path: join(shotDir, "console-card.png"), animations: "disabled" });
  }, 60_000);

  it("approves with a, only after the confirmation; Escape cancels it", async () => {
    await page.keyboard.press("a");
    const confirm = page.getByRole("alertdialog");
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain("Approve issue_refund once?");
    await page.keyboard.press("Escape");
    await confirm.waitFor({ state: "detached" });
    expect(await focusedId()).toBe(refundId);
    expect((await f.store.getApproval(refundId))?.status).toBe("pending");
    await page.keyboard.press("a");
    await confirm.waitFor();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator(".flash").textContent()).toContain("Approved once");
    expect(await f.store.getApproval(refundId)).toMatchObject({
      status: "approved",
      decidedBy: "bob",
      scope: "once",
    });
  }, 60_000);

  it("denies with d: the reason first, then Ctrl+Enter, then the confirmation", async () => {
    await page.keyboard.press("j");
    expect(await focusedId()).toBe(writeId);
    await page.keyboard.press("d");
    expect(await page.evaluate("document.activeElement.tagName")).toBe("TEXTAREA");
    expect(await page.locator("#keys-status").textContent()).toContain("Ctrl+Enter");
    // Keys typed into the field are the field's: this "a" approves nothing.
    await page.keyboard.type(DENIAL);
    await page.keyboard.press("Control+Enter");
    const confirm = page.getByRole("alertdialog");
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain("Deny write_file with this reason?");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator(".flash").textContent()).toContain("Denied");
    expect(await f.store.getApproval(writeId)).toMatchObject({
      status: "denied",
      decidedBy: "bob",
      decisionReason: DENIAL,
    });
  }, 60_000);

  it("searches the decided view with /, filters it, and moves through it", async () => {
    await page.keyboard.press("/");
    await page.waitForURL(/\/console\/decided/);
    expect(await page.evaluate("document.activeElement.id")).toBe("f-q");
    await page.keyboard.type("SU-7700");
    await page.keyboard.press("Enter");
    await page.waitForURL(/q=SU-7700/);
    expect(await page.locator("#decided-total").textContent()).toBe("6");
    // The filters by keyboard: the decision chosen with the arrows, then the Filter button.
    await page.locator("#f-decision").focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    expect(await page.locator("#f-decision").inputValue()).toBe("denied");
    await page.getByRole("button", { name: "Filter" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(/decision=denied/);
    expect(await page.locator("#decided-total").textContent()).toBe("2");
    await page.goto(`${f.api.url}/console/decided`);
    expect(await page.locator("#decided-total").textContent()).toBe("8");
    await page.keyboard.press("j");
    const first = await focusedId();
    expect(first).toBe(writeId);
    await page.keyboard.press("j");
    expect(await focusedId()).toBe(refundId);
    await page.screenshot({
      path: join(shotDir, "console-decided.png"),
      fullPage: true,
      animations: "disabled",
    });
    const bad = await page.goto(`${f.api.url}/console/decided?decision=maybe`);
    expect(bad?.status()).toBe(400);
    expect(await page.getByRole("alert").textContent()).toContain('"decision" is one of');
  }, 60_000);
});
