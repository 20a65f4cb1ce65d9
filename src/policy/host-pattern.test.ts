import { describe, expect, it } from "vitest";
import { compileHostPattern } from "./host-pattern.js";
import { parseUrlTarget, type UrlTarget } from "./url-target.js";

function target(url: string): UrlTarget {
  const parsed = parseUrlTarget(url);
  if (parsed === undefined) throw new Error(`not a URL: ${url}`);
  return parsed;
}

const matches = (pattern: string, url: string) => compileHostPattern(pattern).test(target(url));

describe("host patterns", () => {
  it("match an exact host, on any port when the pattern names none", () => {
    expect(matches("docs.python.org", "https://docs.python.org/3/")).toBe(true);
    expect(matches("docs.python.org", "http://docs.python.org:8080/")).toBe(true);
    expect(matches("docs.python.org", "https://python.org/")).toBe(false);
  });

  it("`*.` matches subdomains at any depth, never the bare domain or a lookalike", () => {
    expect(matches("*.github.com", "https://api.github.com/")).toBe(true);
    expect(matches("*.github.com", "https://a.b.github.com/")).toBe(true);
    expect(matches("*.github.com", "https://github.com/")).toBe(false);
    expect(matches("*.github.com", "https://evilgithub.com/")).toBe(false);
    expect(matches("*.github.com", "https://github.com.evil.com/")).toBe(false);
  });

  it("ignore userinfo: the host is what follows the @", () => {
    expect(target("https://docs.python.org@evil.com/").host).toBe("evil.com");
    expect(matches("docs.python.org", "https://docs.python.org@evil.com/")).toBe(false);
    expect(matches("evil.com", "https://docs.python.org:pw@evil.com/")).toBe(true);
    // WHATWG treats a backslash as a slash in http(s) URLs, as the fetch tool does.
    expect(matches("evil.com", "https://evil.com\\@docs.python.org/")).toBe(true);
  });

  it("compare case-insensitively and treat a trailing dot as the same name", () => {
    expect(matches("docs.python.org", "https://DOCS.Python.ORG./")).toBe(true);
    expect(matches("Docs.Python.org.", "https://docs.python.org/")).toBe(true);
  });

  it("normalise IDN to punycode on both sides", () => {
    expect(matches("bücher.example", "https://xn--bcher-kva.example/")).toBe(true);
    expect(matches("xn--bcher-kva.example", "https://BÜCHER.example/")).toBe(true);
    expect(matches("*.bücher.example", "https://shop.bücher.example/")).toBe(true);
    // A Cyrillic "а" is a different host, whatever it looks like.
    expect(matches("apple.com", "https://аpple.com/")).toBe(false);
  });

  it("normalise IP literals, including IPv4-mapped IPv6", () => {
    expect(matches("127.0.0.1", "http://127.1/")).toBe(true);
    expect(matches("127.0.0.1", "http://0x7f.0.0.1/")).toBe(true);
    expect(matches("127.0.0.1", "http://2130706433/")).toBe(true);
    expect(matches("127.0.0.1", "http://[::ffff:127.0.0.1]/")).toBe(true);
    expect(matches("[::1]", "http://[0:0:0:0:0:0:0:1]/")).toBe(true);
    expect(matches("[::1]:8443", "https://[::1]:8443/")).toBe(true);
    expect(matches("[::1]:8443", "https://[::1]/")).toBe(false);
  });

  it("match a port when the pattern names one, counting the scheme's default", () => {
    expect(matches("localhost:8080", "http://localhost:8080/x")).toBe(true);
    expect(matches("localhost:8080", "http://localhost/x")).toBe(false);
    expect(matches("example.com:443", "https://example.com/")).toBe(true);
    expect(matches("example.com:80", "http://example.com/")).toBe(true);
    expect(matches("example.com:80", "https://example.com/")).toBe(false);
  });

  it("`*` matches any URL that has a host", () => {
    expect(matches("*", "https://anything.example/")).toBe(true);
    expect(matches("*", "file:///etc/passwd")).toBe(false);
  });

  it("never match a URL without a host", () => {
    expect(target("file:///etc/passwd").host).toBe("");
    expect(matches("localhost", "file:///etc/passwd")).toBe(false);
    expect(target("ftp://evil.com/x").web).toBe(false);
    expect(parseUrlTarget("not a url")).toBeUndefined();
  });

  it("reject patterns that are not hosts", () => {
    for (const bad of [
      "",
      "https://x.com",
      "x.com/path",
      "user@x.com",
      "a.*.com",
      "*x.com",
      "x.com:99999",
      "*.127.0.0.1",
      "ex ample.com",
    ]) {
      expect(() => compileHostPattern(bad), bad).toThrow(/bad host pattern/);
    }
  });
});
