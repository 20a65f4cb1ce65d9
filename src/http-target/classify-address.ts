import { BlockList, isIP } from "node:net";

/** The verdict on one IP address. */
export type AddressVerdict = { blocked: false } | { blocked: true; reason: string };

type Family = "ipv4" | "ipv6";
type Range = readonly [network: string, prefix: number];

/** First matching category wins, so the specific ones (metadata, broadcast) come first. */
const CATEGORIES: ReadonlyArray<{ reason: string; family: Family; ranges: Range[] }> = [
  {
    reason: "a cloud metadata address",
    family: "ipv4",
    ranges: [
      ["169.254.169.254", 32],
      ["169.254.170.2", 32],
      ["100.100.100.200", 32],
    ],
  },
  { reason: "a cloud metadata address", family: "ipv6", ranges: [["fd00:ec2::254", 128]] },
  { reason: "the broadcast address", family: "ipv4", ranges: [["255.255.255.255", 32]] },
  { reason: "an unspecified ('this network') address", family: "ipv4", ranges: [["0.0.0.0", 8]] },
  { reason: "an unspecified address", family: "ipv6", ranges: [["::", 128]] },
  { reason: "a loopback address", family: "ipv4", ranges: [["127.0.0.0", 8]] },
  { reason: "a loopback address", family: "ipv6", ranges: [["::1", 128]] },
  {
    reason: "a private network address",
    family: "ipv4",
    ranges: [
      ["10.0.0.0", 8],
      ["172.16.0.0", 12],
      ["192.168.0.0", 16],
    ],
  },
  { reason: "a private (unique local) address", family: "ipv6", ranges: [["fc00::", 7]] },
  { reason: "a link-local address", family: "ipv4", ranges: [["169.254.0.0", 16]] },
  {
    reason: "a link-local address",
    family: "ipv6",
    ranges: [
      ["fe80::", 10],
      ["fec0::", 10],
    ],
  },
  { reason: "a carrier-grade NAT (shared) address", family: "ipv4", ranges: [["100.64.0.0", 10]] },
  { reason: "a multicast address", family: "ipv4", ranges: [["224.0.0.0", 4]] },
  { reason: "a multicast address", family: "ipv6", ranges: [["ff00::", 8]] },
  {
    reason: "a reserved, benchmarking or documentation address",
    family: "ipv4",
    ranges: [
      ["192.0.0.0", 24],
      ["192.0.2.0", 24],
      ["192.88.99.0", 24],
      ["198.18.0.0", 15],
      ["198.51.100.0", 24],
      ["203.0.113.0", 24],
      ["240.0.0.0", 4],
    ],
  },
  {
    reason: "a reserved, tunnelling or documentation address",
    family: "ipv6",
    ranges: [
      ["::", 96], // IPv4-compatible (deprecated)
      ["64:ff9b:1::", 48], // local-use NAT64
      ["100::", 64], // discard
      ["2001::", 23], // IETF special purpose, incl. Teredo 2001::/32
      ["2001:db8::", 32],
      ["3fff::", 20],
    ],
  },
];

const LISTS = CATEGORIES.map(({ reason, family, ranges }) => {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, family);
  return { reason, family, list };
});

const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet("2000::", 3, "ipv6");

/**
 * Classify an IP address for outbound fetches: blocked unless it is publicly routable. IPv4
 * blocks loopback, private, link-local, CGNAT, unspecified, multicast, broadcast, reserved and
 * cloud-metadata ranges; IPv6 blocks the same kinds and allows only global unicast (2000::/3).
 * IPv6 forms that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`,
 * 6to4 `2002::/16`) are judged by the IPv4 address inside.
 *
 * @example
 * ```ts
 * classifyAddress("8.8.8.8"); // { blocked: false }
 * classifyAddress("::ffff:169.254.169.254"); // { blocked: true, reason: "a cloud metadata address (inside an IPv6 address)" }
 * ```
 */
export function classifyAddress(address: string): AddressVerdict {
  const bare = address.replace(/%.*$/, "");
  const version = isIP(bare);
  if (version === 4) return classifyIn(bare, "ipv4");
  if (version !== 6) return { blocked: true, reason: "not an IP address" };
  const embedded = embeddedIPv4(bare);
  if (embedded !== undefined) {
    const inner = classifyIn(embedded, "ipv4");
    return inner.blocked
      ? { blocked: true, reason: `${inner.reason} (inside an IPv6 address)` }
      : inner;
  }
  const verdict = classifyIn(bare, "ipv6");
  if (verdict.blocked || GLOBAL_UNICAST_V6.check(bare, "ipv6")) return verdict;
  return { blocked: true, reason: "not a global unicast IPv6 address" };
}

function classifyIn(address: string, family: Family): AddressVerdict {
  for (const { reason, family: listFamily, list } of LISTS) {
    if (listFamily === family && list.check(address, family)) return { blocked: true, reason };
  }
  return { blocked: false };
}

/**
 * The IPv4 address carried by an IPv4-mapped, NAT64 (64:ff9b::/96) or 6to4 (2002::/16)
 * IPv6 address, in dotted form; undefined for any other address.
 *
 * @example
 * ```ts
 * embeddedIPv4("::ffff:7f00:1"); // "127.0.0.1"
 * embeddedIPv4("2002:a00:1::"); // "10.0.0.1"
 * ```
 */
export function embeddedIPv4(address: string): string | undefined {
  const bytes = ipv6Bytes(address);
  if (bytes === undefined) return undefined;
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  const dotted = (at: number) => Array.from(bytes.subarray(at, at + 4)).join(".");
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return dotted(12);
  if (
    bytes[0] === 0x00 &&
    bytes[1] === 0x64 &&
    bytes[2] === 0xff &&
    bytes[3] === 0x9b &&
    zeros(4, 12)
  ) {
    return dotted(12);
  }
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return dotted(2);
  return undefined;
}

/** The 16 bytes of a valid IPv6 address (zone removed), or undefined when it is not one. */
function ipv6Bytes(address: string): Uint8Array | undefined {
  const bare = address.replace(/%.*$/, "");
  if (isIP(bare) !== 6) return undefined;
  let text = bare;
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    // Rewrite a dotted IPv4 tail as two hex groups, then parse one way.
    const [a = 0, b = 0, c = 0, d = 0] = text
      .slice(lastColon + 1)
      .split(".")
      .map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string) =>
    part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16));
  const [left = "", right] = text.split("::");
  const head = parse(left);
  const rest = right === undefined ? [] : parse(right);
  const groups =
    right === undefined
      ? head
      : [...head, ...Array<number>(8 - head.length - rest.length).fill(0), ...rest];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[i * 2] = (group >> 8) & 0xff;
    bytes[i * 2 + 1] = group & 0xff;
  });
  return bytes;
}
