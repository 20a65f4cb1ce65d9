import { describe, expect, it } from "vitest";
import type {
  NetworkAskRequest,
  NetworkConnection,
} from "../sandbox/network/network-connection.js";
import { createCallsInFlight } from "./calls-in-flight.js";

const connection: NetworkConnection = {
  kind: "connect",
  host: "api.example.org",
  port: 443,
  decision: "allow",
  rule: "mcp.api:allow:api.example.org",
  status: "closed",
  bytesOut: 10,
  bytesIn: 20,
  durationMs: 3,
};

describe("createCallsInFlight", () => {
  it("records a connection in every call in flight, with the server, and none after they leave", () => {
    const calls = createCallsInFlight("api");
    const first: unknown[][] = [];
    const second: unknown[][] = [];
    const leaveFirst = calls.enter((...line) => first.push(line));
    const leaveSecond = calls.enter((...line) => second.push(line));
    expect(calls.record(connection)).toBe(true);
    leaveFirst();
    expect(calls.record({ ...connection, host: "later.example.org" })).toBe(true);
    leaveSecond();
    expect(calls.record(connection)).toBe(false);
    expect(first).toEqual([["network connection", { ...connection, server: "api" }]]);
    expect(second.map(([, data]) => (data as NetworkConnection).host)).toEqual([
      "api.example.org",
      "later.example.org",
    ]);
  });

  it("binds an ask to the earliest call in flight, and refuses one while none is, unasked", async () => {
    const calls = createCallsInFlight("api");
    const asked: NetworkAskRequest[] = [];
    const approve = calls.approver(async (request) => {
      asked.push(request);
      return true;
    });
    const signal = new AbortController().signal;
    const ask = { host: "api.example.org", port: 443, rule: "mcp.api:ask:api.example.org" };
    expect(await approve(ask, signal)).toEqual({
      approved: false,
      reason: expect.stringContaining("serving no call"),
    });
    const first = { callId: "c1", sessionId: "s1", principal: "agent" };
    const leaveFirst = calls.enter(() => {}, first);
    const leaveSecond = calls.enter(() => {}, {
      callId: "c2",
      sessionId: "s2",
      principal: "agent",
    });
    expect(await approve(ask, signal)).toBe(true);
    leaveFirst();
    await approve(ask, signal);
    leaveSecond();
    expect(asked.map((request) => request.call?.callId)).toEqual(["c1", "c2"]);
    expect(asked[0]).toEqual({ ...ask, call: first });
  });
});
