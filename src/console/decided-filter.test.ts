import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readDecidedQuery } from "./decided-filter.js";

const read = (query: string, projects: string[] = ["docket.yaml"]) =>
  readDecidedQuery(new URLSearchParams(query), { projects });

describe("the decided view's query", () => {
  it("turns every filter into the store's filter", () => {
    const query = read(
      "tool=issue_refund&principal=agent&approver=bob&decision=denied&from=2026-02-28&to=2026-03-01&project=docket.yaml&q=SU-88",
    );
    expect(query).toMatchObject({
      status: "ok",
      page: {
        statuses: ["denied"],
        tool: "issue_refund",
        requestedBy: "agent",
        decidedBy: "bob",
        createdFrom: Date.UTC(2026, 1, 28),
        // "to" a date means to the end of that day.
        createdBefore: Date.UTC(2026, 2, 2),
        search: "SU-88",
      },
    });
  });

  it("lists every decided status when no decision is chosen, and reads a minute as UTC", () => {
    const query = read("decision=&from=2026-03-01T09:30");
    expect(query).toMatchObject({
      status: "ok",
      page: {
        statuses: ["approved", "denied", "expired"],
        createdFrom: Date.UTC(2026, 2, 1, 9, 30),
      },
    });
  });

  it.each([
    ["decision=maybe", '"decision" is one of approved, denied, expired'],
    ["decision=pending", '"decision" is one of'],
    ["from=2026-02-31", '"from" is a date'],
    ["to=yesterday", '"to" is a date'],
    ["from=2026-03-01T24:00", '"from" is a date'],
    ["from=2026-03-02&to=2026-03-01", '"from" must come before "to"'],
    ["project=elsewhere.yaml", 'serves "docket.yaml"; "elsewhere.yaml" is not one'],
    ["sort=tool", '"sort" is not a filter'],
    ["tool=a&tool=b", '"tool" is given twice'],
    [`q=${"x".repeat(201)}`, "longer than 200"],
    ["q=a%00b", "control character"],
  ])("refuses %s with its reason", (query, reason) => {
    const result = read(query);
    expect(result.status).toBe("invalid");
    expect(result.status === "invalid" && result.problems.join(" ")).toContain(reason);
  });

  it("names every problem at once", () => {
    const result = read("decision=x&from=y&colour=red");
    expect(result.status === "invalid" && result.problems).toHaveLength(3);
  });

  it("cannot filter by project when it does not know its own", () => {
    const result = read("project=docket.yaml", []);
    expect(result.status === "invalid" && result.problems[0]).toContain("does not know");
  });

  it("never throws, and never widens a filter it was given into none (property)", () => {
    const keys = fc.constantFrom(
      "tool",
      "principal",
      "approver",
      "decision",
      "from",
      "to",
      "q",
      "x",
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(keys, fc.string({ maxLength: 30 })), { maxLength: 6 }),
        (pairs) => {
          const params = new URLSearchParams(pairs);
          const result = readDecidedQuery(params, { projects: [] });
          if (result.status === "invalid") {
            expect(result.problems.length).toBeGreaterThan(0);
            return;
          }
          // What was accepted is what is asked of the store, trimmed.
          for (const [key, value] of pairs) {
            const text = value.trim();
            if (key === "tool" && text) expect(result.page.tool).toBe(text);
            if (key === "principal" && text) expect(result.page.requestedBy).toBe(text);
            if (key === "q" && text) expect(result.page.search).toBe(text);
          }
          expect(result.page.statuses).not.toContain("pending");
        },
      ),
    );
  });
});
