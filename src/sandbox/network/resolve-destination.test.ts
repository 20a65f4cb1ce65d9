import { describe, expect, it } from "vitest";
import { resolveDestination } from "./resolve-destination.js";

const resolver = (table: Record<string, string[]>) => async (host: string) => {
  const addresses = table[host];
  if (addresses === undefined) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
  return addresses.map((address) => ({ address }));
};

describe("resolveDestination", () => {
  it("connects public names to their first address", async () => {
    const resolve = resolver({
      "pkg.example": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    });
    expect(await resolveDestination("pkg.example", { resolve })).toEqual({
      status: "ok",
      address: "93.184.215.14",
    });
  });

  it("refuses a name with any private, loopback, link-local or metadata address", async () => {
    const resolve = resolver({
      rebind: ["93.184.215.14", "10.0.0.5"],
      meta: ["169.254.169.254"],
      v6: ["fe80::1"],
      mapped: ["::ffff:127.0.0.1"],
    });
    for (const [host, words] of [
      ["rebind", "10.0.0.5 is a private network address (rebind resolves to it)"],
      ["meta", "cloud metadata"],
      ["v6", "link-local"],
      ["mapped", "loopback"],
    ] as const) {
      const destination = await resolveDestination(host, { resolve });
      expect(destination.status).toBe("blocked");
      expect(destination.status === "blocked" && destination.reason).toContain(words);
    }
  });

  it("judges IP literals without asking DNS, and reports names that do not resolve", async () => {
    const resolve = resolver({});
    expect(await resolveDestination("127.0.0.1", { resolve })).toMatchObject({ status: "blocked" });
    expect(await resolveDestination("[::1]", { resolve })).toMatchObject({ status: "blocked" });
    expect(await resolveDestination("8.8.8.8", { resolve })).toEqual({
      status: "ok",
      address: "8.8.8.8",
    });
    expect(await resolveDestination("nowhere.example", { resolve })).toEqual({
      status: "blocked",
      reason: "nowhere.example could not be resolved (ENOTFOUND)",
    });
  });

  it("takes the operator's fixed addresses as they are, and only for the names listed", async () => {
    const hosts = { "staging.internal": "10.1.2.3" };
    const resolve = resolver({ "other.internal": ["10.1.2.3"] });
    expect(await resolveDestination("Staging.Internal.", { resolve, hosts })).toEqual({
      status: "ok",
      address: "10.1.2.3",
    });
    expect(await resolveDestination("other.internal", { resolve, hosts })).toMatchObject({
      status: "blocked",
    });
    expect(await resolveDestination("constructor", { resolve, hosts })).toMatchObject({
      status: "blocked",
    });
  });
});
