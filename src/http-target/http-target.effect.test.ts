import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseHttpTarget, type Resolver, vetHttpTarget } from "./http-target.effect.js";

// The guard is neutral: no tool's names in it, refusals are values, the verb is the caller's.
let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((_req, res) => res.end("inside"));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const resolvesTo =
  (address: string): Resolver =>
  async () => [{ address, family: 4 }];

describe("the HTTP-target guard", () => {
  it("refuses a name that leads to a live server on loopback, as a value, in the caller's words", async () => {
    const parsed = parseHttpTarget(`http://api.example.test:${port}/x`, { verb: "call" });
    if (parsed.status !== "ok") throw new Error(parsed.message);
    const verdict = await vetHttpTarget(
      parsed.url,
      { resolve: resolvesTo("127.0.0.1") },
      { verb: "call" },
    );
    expect(verdict).toMatchObject({ status: "refused", code: "blocked_address" });
    if (verdict.status === "refused") {
      expect(verdict.message).toContain("Refused to call");
      expect(verdict.message).toContain("can be called");
      expect(verdict.message).not.toMatch(/fetch/);
    }
  });

  it("lets an operator's exception through to the address it vetted, which then answers", async () => {
    const parsed = parseHttpTarget(`http://127.0.0.1:${port}/`);
    if (parsed.status !== "ok") throw new Error(parsed.message);
    const verdict = await vetHttpTarget(parsed.url, { isAllowedAddress: (a) => a === "127.0.0.1" });
    if (verdict.status !== "ok") throw new Error(verdict.message);
    const reply = await fetch(`http://${verdict.target.address}:${port}/`);
    expect(await reply.text()).toBe("inside");
  });

  it("says why a URL is not one at all, without throwing", () => {
    expect(parseHttpTarget("file:///etc/passwd")).toMatchObject({
      status: "refused",
      code: "unsupported_scheme",
    });
    expect(parseHttpTarget("https://u:p@example.com/")).toMatchObject({
      status: "refused",
      code: "credentials_in_url",
    });
    expect(parseHttpTarget("::")).toMatchObject({ status: "refused", code: "invalid_url" });
  });

  it("reports a failed lookup as a refusal carrying its cause", async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error("nope"), { code: "ENOTFOUND" });
    };
    const verdict = await vetHttpTarget(new URL("https://nowhere.example/"), { resolve: failing });
    expect(verdict).toMatchObject({ status: "refused", code: "dns_failed" });
    if (verdict.status === "refused") expect(verdict.cause).toBeInstanceOf(Error);
  });
});
