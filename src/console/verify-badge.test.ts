import { describe, expect, it } from "vitest";
import type { TrailProblem, TrailReport } from "../audit/trail-report.js";
import { verifyBadge } from "./session-pages.js";

const base: TrailReport = {
  ok: true,
  verdict: "verified",
  storeId: "st_1",
  sessions: 1,
  events: 8,
  attestations: 2,
  checkpoints: 2, // legacy-name
  problems: [],
  unsigned: [],
  recovered: [],
  notProven: [],
};
const tail: TrailProblem = {
  kind: "unsigned_tail",
  sessionId: "ses_1",
  seq: 9,
  message: "events 9 to 12 are not covered by a signed attestation",
};

describe("the console's verify badge", () => {
  it("follows the three verdicts: a session not yet signed to its end is a status, never BROKEN", () => {
    expect(String(verifyBadge(base))).toContain("✔ Audit chain verified");
    const unsigned = String(
      verifyBadge({ ...base, ok: false, verdict: "unsigned", unsigned: [tail] }),
    );
    expect(unsigned).toContain('role="status"');
    expect(unsigned).toContain("not yet signed to its end");
    expect(unsigned).toContain("events 9 to 12");
    expect(unsigned).not.toContain("BROKEN");
    const tampered = String(
      verifyBadge({
        ...base,
        ok: false,
        verdict: "tampered",
        problems: [{ ...tail, kind: "session", seq: 0, message: "it was edited" }],
      }),
    );
    expect(tampered).toContain('role="alert"');
    expect(tampered).toContain("✘ Audit chain BROKEN");
  });

  it("names the spans recovery signed after a crash beside a verified badge", () => {
    const badge = String(
      verifyBadge({
        ...base,
        recovered: [
          {
            sessionId: "ses_1",
            fromSeq: 5,
            toSeq: 8,
            at: 0,
            message: "events 5 to 8 were signed by recovery",
          },
        ],
      }),
    );
    expect(badge).toContain("✔ Audit chain verified");
    expect(badge).toContain("Recovered: events 5 to 8 were signed by recovery");
  });
});
