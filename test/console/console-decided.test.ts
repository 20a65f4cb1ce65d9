import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleFixture, signInCookie, startConsole, TOKENS } from "./console-fixture.js";

// The decided view over real HTTP, in front of a real SQLite store: filters, search, paging,
// and a clear 400 for a query it cannot read.

const XSS = `<img src=x onerror="alert('decided')">`;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 1);

let f: ConsoleFixture;
let cookie: string;

const get = (path: string, headers: Record<string, string> = { cookie }) =>
  fetch(`${f.api.url}${path}`, { headers, redirect: "manual" });

const rowIds = (html: string) =>
  [...html.matchAll(/<li class="row status-\w+" id="([^"]+)"/g)].map((m) => m[1]);

beforeAll(async () => {
  f = await startConsole("decided");
  for (let i = 0; i < 60; i += 1) {
    const approval = await f.store.createApproval({
      id: `apr_${String(i).padStart(2, "0")}`,
      callId: `c_${i}`,
      tool: i % 2 ? "write_file" : "issue_refund",
      canonicalArgs: JSON.stringify({ order_id: `SU-${1000 + i}`, note: i === 7 ? XSS : "" }),
      argsHash: String(i % 10).repeat(64),
      requestedBy: i % 3 ? "agent" : "ops-bot",
      rule: "default:writes",
      createdAt: T0 + i * DAY,
    });
    await f.store.decideApproval(approval.id, {
      decision: i % 4 ? "approved" : "denied",
      by: i % 5 ? "bob" : "dave",
      ...(i % 4 ? {} : { reason: "Photos first, please." }),
    });
  }
  await f.store.createApproval({
    callId: "c_waiting",
    tool: "issue_refund",
    canonicalArgs: '{"order_id":"SU-1007"}',
    argsHash: "f".repeat(64),
    requestedBy: "agent",
  });
  cookie = await signInCookie(f, TOKENS.bob);
}, 60_000);

afterAll(async () => {
  await f?.close();
});

describe("the console's decided view", () => {
  it("asks for sign-in first", async () => {
    const response = await get("/console/decided", {});
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/console/sign-in");
  });

  it("lists decided requests newest first, 50 a page, escaped, never a pending one", async () => {
    const response = await get("/console/decided");
    expect(response.status).toBe(200);
    const html = await response.text();
    const ids = rowIds(html);
    expect(ids).toHaveLength(50);
    expect(ids[0]).toBe("apr_59");
    expect(html).toContain('<span id="decided-total">60</span>');
    expect(html).not.toContain("c_waiting");
    expect(html).not.toContain("<img src=x");
    const next = /href="(\/console\/decided\?[^"]+)" rel="next"/.exec(html)?.[1] ?? "";
    const second = await (await get(next.replaceAll("&amp;", "&"))).text();
    expect(rowIds(second)).toEqual(Array.from({ length: 10 }, (_, i) => `apr_0${9 - i}`));
  });

  it("filters by tool, principal, approver, decision, time and project, and searches", async () => {
    const ids = async (query: string) => {
      const response = await get(`/console/decided?${query}`);
      expect(response.status, query).toBe(200);
      return rowIds(await response.text());
    };
    expect(await ids("tool=write_file&decision=denied")).toEqual([]);
    expect(await ids("tool=issue_refund&decision=denied&approver=dave")).toEqual([
      "apr_40",
      "apr_20",
      "apr_00",
    ]);
    expect(await ids("principal=ops-bot&from=2026-03-01&to=2026-03-10")).toEqual([
      "apr_09",
      "apr_06",
      "apr_03",
      "apr_00",
    ]);
    expect(await ids("q=su-1042")).toEqual(["apr_42"]);
    expect(await ids("q=photos+first&tool=issue_refund&from=2026-04-01")).toEqual([
      "apr_56",
      "apr_52",
      "apr_48",
      "apr_44",
      "apr_40",
      "apr_36",
      "apr_32",
    ]);
    expect(await ids("project=docket.yaml&q=onerror")).toEqual(["apr_07"]);
    // The filters stay in the form, and in the next page's link.
    const html = await (await get("/console/decided?q=SU")).text();
    expect(html).toContain('id="f-q" name="q" type="search" value="SU"');
    expect(html).toMatch(/href="\/console\/decided\?q=SU&amp;cursor=[^"]+" rel="next"/);
  });

  it("answers 400 with every reason for filters it cannot read, and lists nothing", async () => {
    const response = await get(
      "/console/decided?decision=maybe&from=2026-13-01&project=other.yaml&colour=red",
    );
    expect(response.status).toBe(400);
    const html = await response.text();
    for (const reason of [
      '"decision" is one of approved, denied, expired',
      '"from" is a date',
      '"other.yaml" is not one',
      '"colour" is not a filter',
    ]) {
      expect(html).toContain(reason.replaceAll('"', "&quot;"));
    }
    expect(rowIds(html)).toEqual([]);
    expect(html).not.toMatch(/\n\s+at /);
    const cursor = await get("/console/decided?cursor=not-one-of-ours");
    expect(cursor.status).toBe(400);
  });
});
