import { describe, expect, it } from "vitest";
import { BuiltinRefusal } from "../builtin-refusal.js";
import { parseFetchUrl, type Resolver, vetTarget } from "./vet-target.effect.js";

const noDns: Resolver = async (hostname) => {
  throw new Error(`DNS must not be asked about ${hostname}`);
};
const resolvesTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

async function refusal(promise: Promise<unknown>): Promise<BuiltinRefusal> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(BuiltinRefusal);
  return error as BuiltinRefusal;
}

const vet = (url: string, resolve: Resolver = noDns) => vetTarget(parseFetchUrl(url), { resolve });

describe("parseFetchUrl", () => {
  it("accepts http and https only, without credentials", async () => {
    expect(parseFetchUrl("https://example.com/a?b=1").href).toBe("https://example.com/a?b=1");
    for (const [url, code] of [
      ["file:///etc/passwd", "unsupported_scheme"],
      ["ftp://example.com/", "unsupported_scheme"],
      ["gopher://127.0.0.1:25/", "unsupported_scheme"],
      ["not a url", "invalid_url"],
      ["https://user:pw@example.com/", "credentials_in_url"],
    ] as const) {
      expect((await refusal(Promise.resolve().then(() => parseFetchUrl(url)))).code).toBe(code);
    }
  });
});

describe("vetTarget", () => {
  it.each([
    "http://127.0.0.1/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0177.0.0.1/",
    "http://0x7f.1/",
    "http://127.1/",
    "http://0/",
    "http://0.0.0.0:8080/",
    "http://[::1]/",
    "http://[::]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:a9fe:a9fe]/latest/meta-data/",
    "http://[0:0:0:0:0:ffff:169.254.169.254]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/",
    "http://[fe80::1]/",
    "http://10.0.0.1/",
    "http://100.64.0.1/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://%31%32%37.0.0.1/",
    "http://１２７.0.0.1/",
  ])("refuses %s without asking DNS", async (url) => {
    const error = await refusal(vet(url));
    expect(error.code).toBe("blocked_address");
    expect(error.message).toContain("Only public internet addresses can be fetched");
  });

  it.each([
    "http://localhost:3000/",
    "http://LOCALHOST./",
    "http://app.localhost/",
    "http://metadata.google.internal/computeMetadata/v1/",
  ])("refuses the name %s without asking DNS", async (url) => {
    expect((await refusal(vet(url))).code).toBe("blocked_address");
  });

  it("refuses a public-looking name that resolves to loopback or metadata", async () => {
    const loop = await refusal(vet("https://innocent.example/", resolvesTo("127.0.0.1")));
    expect(loop.message).toContain("'innocent.example' resolves to 127.0.0.1");
    expect(loop.message).toContain("loopback");
    const meta = await refusal(vet("https://innocent.example/", resolvesTo("169.254.169.254")));
    expect(meta.message).toContain("cloud metadata");
  });

  it("refuses when any one of the resolved addresses is private", async () => {
    const error = await refusal(
      vet("https://mixed.example/", resolvesTo("93.184.215.14", "10.0.0.7")),
    );
    expect(error.message).toContain("10.0.0.7");
  });

  it("returns the first vetted address of a public name", async () => {
    const target = await vet("https://ok.example/", resolvesTo("2606:4700:4700::1111", "1.1.1.1"));
    expect(target).toMatchObject({
      hostname: "ok.example",
      address: "2606:4700:4700::1111",
      family: 6,
    });
  });

  it("lets an explicit exception or the relaxed policy through", async () => {
    const url = parseFetchUrl("http://127.0.0.1:8080/");
    expect((await vetTarget(url, { isAllowedAddress: (a) => a === "127.0.0.1" })).address).toBe(
      "127.0.0.1",
    );
    expect((await vetTarget(url, { allowPrivateAddresses: true })).address).toBe("127.0.0.1");
    const other = parseFetchUrl("http://10.0.0.1/");
    expect(
      (await refusal(vetTarget(other, { isAllowedAddress: (a) => a === "127.0.0.1" }))).code,
    ).toBe("blocked_address");
  });

  it("reports resolution failures in words", async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    const error = await refusal(vet("https://nope.invalid/", failing));
    expect(error.code).toBe("dns_failed");
    expect(error.message).toContain("ENOTFOUND");
  });
});
