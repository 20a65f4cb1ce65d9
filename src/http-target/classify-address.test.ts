import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyAddress, embeddedIPv4 } from "./classify-address.js";

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "metadata"],
    ["169.254.1.1", "link-local"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.255", "carrier-grade NAT"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["192.0.2.1", "documentation"],
    ["198.18.0.1", "benchmarking"],
    ["240.0.0.1", "reserved"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fd00:ec2::254", "metadata"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:a9fe:a9fe", "metadata"],
    ["::ffff:10.0.0.1", "private"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::169.254.169.254", "metadata"],
    ["2002:c0a8:101::1", "private"],
    ["::127.0.0.1", "reserved"],
    ["2001:db8::1", "documentation"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "tunnelling"],
    ["4000::1", "global unicast"],
    ["example.com", "not an IP"],
  ])("blocks %s (%s)", (address, why) => {
    const verdict = classifyAddress(address);
    expect(verdict.blocked).toBe(true);
    expect(verdict.blocked && verdict.reason).toContain(why);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "93.184.215.14",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "2002:808:808::1",
  ])("allows public %s", (address) => {
    expect(classifyAddress(address)).toEqual({ blocked: false });
  });

  const ipv4 = fc
    .tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255))
    .map((parts) => parts.join("."));

  it("judges every IPv6 wrapping of an IPv4 address like the address itself", () => {
    fc.assert(
      fc.property(ipv4, (address) => {
        const [a = 0, b = 0, c = 0, d = 0] = address.split(".").map(Number);
        const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
        const plain = classifyAddress(address).blocked;
        expect(classifyAddress(`::ffff:${address}`).blocked).toBe(plain);
        expect(classifyAddress(`::ffff:${hex}`).blocked).toBe(plain);
        expect(classifyAddress(`64:ff9b::${hex}`).blocked).toBe(plain);
        expect(classifyAddress(`2002:${hex}::1`).blocked).toBe(plain);
      }),
      { numRuns: 500 },
    );
  });

  it("blocks every address in the private ranges", () => {
    const inRange = fc.oneof(
      fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([b, c, d]) => `10.${b}.${c}.${d}`),
      fc
        .tuple(fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255))
        .map(([b, c, d]) => `172.${b}.${c}.${d}`),
      fc.tuple(fc.nat(255), fc.nat(255)).map(([c, d]) => `192.168.${c}.${d}`),
      fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([b, c, d]) => `127.${b}.${c}.${d}`),
      fc
        .tuple(fc.integer({ min: 64, max: 127 }), fc.nat(255), fc.nat(255))
        .map(([b, c, d]) => `100.${b}.${c}.${d}`),
    );
    fc.assert(
      fc.property(inRange, (address) => {
        expect(classifyAddress(address).blocked).toBe(true);
      }),
    );
  });
});

describe("embeddedIPv4", () => {
  it("extracts the IPv4 address from mapped, NAT64 and 6to4 forms only", () => {
    expect(embeddedIPv4("::ffff:7f00:1")).toBe("127.0.0.1");
    expect(embeddedIPv4("::ffff:1.2.3.4")).toBe("1.2.3.4");
    expect(embeddedIPv4("64:ff9b::a9fe:a9fe")).toBe("169.254.169.254");
    expect(embeddedIPv4("2002:a00:1::")).toBe("10.0.0.1");
    expect(embeddedIPv4("2606:4700::1111")).toBeUndefined();
    expect(embeddedIPv4("not-an-ip")).toBeUndefined();
  });
});
