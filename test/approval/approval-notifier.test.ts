import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import { createApprovalNotifier } from "../../src/approval/approval-notifier.js";
import type { Approval } from "../../src/store/approval-record.js";
import { cliProject } from "../cli/support/cli-project.js";
import { suspendedWrite } from "../cli/support/suspended-write.js";
import { runDocket } from "../support/run-docket.js";
import { startDocketServe } from "../support/start-docket-serve.js";

// Issue 39: new requests reach people where they are. A local receiver checks the generic
// webhook's signature as a receiver would (its own HMAC, a constant-time compare), and reads
// the Slack and Teams bodies as those services' incoming webhooks take them.

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

async function receiver(status = 200) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body });
      res.writeHead(status).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received };
}

/** What a receiver does: recompute the HMAC of TIMESTAMP.BODY and compare in constant time. */
function signedBy(secret: string, got: Received): boolean {
  const timestamp = String(got.headers["x-docket-timestamp"] ?? "");
  const expected = `sha256=${createHmac("sha256", secret).update(`${timestamp}.${got.body}`).digest("hex")}`;
  const signature = Buffer.from(String(got.headers["x-docket-signature"] ?? ""));
  return signature.length === expected.length && timingSafeEqual(signature, Buffer.from(expected));
}

const approval: Approval = {
  id: "apr_notify_1",
  callId: "call_1",
  tool: "issue_refund",
  canonicalArgs: '{"amount":200,"card":"4111 1111 1111 1111"}',
  argsHash: "ab".repeat(32),
  requestedBy: "support-agent",
  status: "pending",
  createdAt: 1_700_000_000_000,
  expiresAt: 1_700_000_900_000,
  sessionId: "ses_1",
  rule: "refund-ceiling",
  reason: "refunds over 150 USD need a lead",
} as Approval;

describe("the approval notifier", () => {
  it("signs a generic webhook's body; Slack and Teams get their formats; all link the card", async () => {
    const sink = await receiver();
    const notify = createApprovalNotifier({
      targets: [
        { format: "webhook", url: `${sink.url}/hook` },
        { format: "slack", url: `${sink.url}/slack` },
        { format: "teams", url: `${sink.url}/teams` },
      ],
      consoleOrigin: "https://docket.example.test/",
      secret: "s3cret",
    });
    const outcomes = await notify(approval);
    expect(outcomes.map((o) => o.status)).toEqual(["sent", "sent", "sent"]);
    const card = "https://docket.example.test/console/approvals/apr_notify_1";
    const byPath = new Map(sink.received.map((r) => [r.path, r]));

    const hook = byPath.get("/hook") as Received;
    expect(signedBy("s3cret", hook)).toBe(true);
    expect(signedBy("another secret", hook)).toBe(false);
    expect(
      signedBy("s3cret", { ...hook, body: hook.body.replace("issue_refund", "delete_files") }),
    ).toBe(false);
    expect(JSON.parse(hook.body)).toMatchObject({
      type: "approval_requested",
      id: "apr_notify_1",
      tool: "issue_refund",
      rule: "refund-ceiling",
      argsHash: "ab".repeat(32),
      url: card,
    });
    // Arguments stay in the console: a chat channel never sees them.
    for (const got of sink.received) expect(got.body).not.toContain("4111");

    const slack = JSON.parse((byPath.get("/slack") as Received).body);
    expect(slack.text).toContain(card);
    expect(slack.blocks[1].elements[0]).toMatchObject({ type: "button", url: card });
    const teams = JSON.parse((byPath.get("/teams") as Received).body);
    expect(teams.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(teams.attachments[0].content.actions[0]).toMatchObject({
      type: "Action.OpenUrl",
      url: card,
    });
    expect(byPath.get("/slack")?.headers["x-docket-signature"]).toBeUndefined();
  });

  it("reports a failing receiver by format and host (a webhook URL is a secret), and refuses to send unsigned", async () => {
    const sink = await receiver(500);
    const notify = createApprovalNotifier({
      targets: [{ format: "slack", url: `${sink.url}/T000/B000/XXXX` }],
      consoleOrigin: "http://127.0.0.1:7420",
    });
    const [outcome] = await notify(approval);
    expect(outcome).toEqual({
      status: "failed",
      to: `slack ${sink.url.slice(7)}`,
      reason: "HTTP 500",
    });
    expect(() =>
      createApprovalNotifier({
        targets: [{ format: "webhook", url: sink.url }],
        consoleOrigin: "x",
      }),
    ).toThrow(/needs a secret/);
  });

  it("docket serve --notify: a run's new request reaches the receiver, signed, with its card's link", {
    timeout: 120_000,
  }, async () => {
    const sink = await receiver();
    let served: Awaited<ReturnType<typeof startDocketServe>> | undefined;
    const { id } = await suspendedWrite("bob", async (dir, env) => {
      served = await startDocketServe(
        [
          "--port",
          "0",
          "--notify",
          `webhook=${sink.url}/hook`,
          "--public-url",
          "https://docket.example.test",
        ],
        { cwd: dir, env: { ...env, DOCKET_NOTIFY_SECRET: "shared-secret" } },
      );
      const started = served;
      onTestFinished(async () => void (await started.stop()));
    });
    const deadline = Date.now() + 10_000;
    while (sink.received.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sink.received).toHaveLength(1);
    const [got] = sink.received as [Received];
    expect(signedBy("shared-secret", got)).toBe(true);
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({
      id,
      tool: "write_file",
      url: `https://docket.example.test/console/approvals/${id}`,
    });
    // The same path on the real console is the card (behind sign-in).
    const card = await fetch(`${served?.url}/console/approvals/${id}`, { redirect: "manual" });
    expect([200, 303]).toContain(card.status);
  });

  it("docket serve refuses a webhook without a secret, at start", async () => {
    const { dir, env } = await cliProject(
      "principal: agent\napprovers:\n  bob: { roles: [lead], token_env: BOB_TOKEN }\n",
    );
    const started = await runDocket(
      ["serve", "--port", "0", "--notify", "webhook=http://127.0.0.1:9/x"],
      {
        cwd: dir,
        env: { ...env, BOB_TOKEN: "b".repeat(24), DOCKET_NOTIFY_SECRET: "" },
      },
    );
    expect(started.code).toBe(1);
    expect(started.stderr).toMatch(/^docket: A webhook notifier needs a secret/);
  });
});
