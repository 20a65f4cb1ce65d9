import { describe, expect, it } from "vitest";
import type { NetworkConnection } from "../sandbox/network/network-connection.js";
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
});
