import { describe, expect, it } from "vitest";
import type { Approval } from "../store/approval-record.js";
import { labelsOf, riskRows, touches } from "./risk-note.js";

const approval: Approval = {
  id: "apr_1",
  sessionId: "ses_1",
  callId: "c1",
  tool: "write_file",
  canonicalArgs: '{"content":"x","path":"notes/a.md"}',
  argsHash: "0".repeat(64),
  rule: "default:writes",
  reason: "a write needs a human",
  requestedBy: "agent",
  approvers: undefined,
  createdAt: 0,
  expiresAt: undefined,
  status: "pending",
  decidedBy: undefined,
  decidedAt: undefined,
  decisionReason: undefined,
  locallyAsserted: false,
  scope: "once",
  grantKey: "k",
  grantText: "write_file on notes/a.md",
};

describe("the card's risk note", () => {
  it("says what the call touches, from its arguments, and nothing else", () => {
    expect(touches({ path: "notes/a.md", content: "secret" })).toEqual(["path: notes/a.md"]);
    expect(touches({ command: "rm -rf /", url: "https://x.example" })).toEqual([
      "command: rm -rf /",
      "url: https://x.example",
    ]);
    expect(touches(["path"])).toEqual([]);
    expect(touches({ path: "p".repeat(400) })[0]).toHaveLength(6 + 300 + 1);
  });

  it("reads labels of either shape when the record has them, and ignores any other", () => {
    expect(labelsOf(approval)).toEqual([]);
    const labelled = {
      ...approval,
      labels: ["untrusted", { label: "private", source: "read_file .env" }, { nope: 1 }, 7],
    } as Approval;
    expect(labelsOf(labelled)).toEqual([
      { label: "untrusted", source: undefined },
      { label: "private", source: "read_file .env" },
    ]);
    expect(labelsOf({ ...approval, labels: "private" } as Approval)).toEqual([]);
  });

  it("says tainted with the source, none recorded, or nothing for a record that cannot say", () => {
    const tainted = riskRows(
      approval,
      {},
      "after fetch_url https://e.example (call c0)",
    ).toString();
    expect(tainted).toContain("⚠ tainted: after fetch_url https://e.example (call c0)");
    expect(riskRows(approval, {}, undefined).toString()).toContain(
      "none recorded before this request",
    );
    expect(riskRows({ ...approval, grantText: undefined }, {}, undefined).toString()).not.toContain(
      "Taint",
    );
    const labelled = {
      ...approval,
      labels: [{ label: "private", source: "<b>x</b>" }],
    } as Approval;
    expect(riskRows(labelled, {}, undefined).toString()).toContain(
      '<span class="tag">private</span> from &lt;b&gt;x&lt;/b&gt;',
    );
  });
});
