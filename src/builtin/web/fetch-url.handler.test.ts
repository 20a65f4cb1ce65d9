import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { BuiltinContext } from "../builtin-context.js";
import { BuiltinRefusal } from "../builtin-refusal.js";
import { type FetchUrlOptions, fetchUrl } from "./fetch-url.handler.js";
import type { Resolver } from "./vet-target.effect.js";

let server: Server;
let origin: string;
let port: number;
let hits: string[] = [];
let bigClosedEarly = false;
const ctx: BuiltinContext = { workspace: "/", signal: new AbortController().signal };

/** Tests reach the local server through this exception only; everything else stays strict. */
const onlyLocalServer: FetchUrlOptions = { isAllowedAddress: (address) => address === "127.0.0.1" };

const resolveTo =
  (table: Record<string, string>): Resolver =>
  async (hostname) => {
    const address = table[hostname];
    if (address === undefined) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return [{ address, family: address.includes(":") ? 6 : 4 }];
  };

function streamForever(res: ServerResponse, chunk: Buffer, every: number, limit: number): void {
  let sent = 0;
  const timer = setInterval(() => {
    if (sent >= limit) {
      clearInterval(timer);
      res.end();
      return;
    }
    res.write(chunk);
    sent += chunk.length;
  }, every);
  res.on("close", () => {
    clearInterval(timer);
    if (sent < limit) bigClosedEarly = true;
  });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    hits.push(url.pathname);
    switch (url.pathname) {
      case "/page":
        res.setHeader("content-type", "text/html; charset=utf-8");
        res.end(
          '<html><head><title>Local Docs</title><script>evil()</script></head><body><h1>Welcome</h1><p>See <a href="/guide">the guide</a>.</p></body></html>',
        );
        return;
      case "/json":
        res.setHeader("content-type", "application/json");
        res.end('{"ok":true}');
        return;
      case "/image":
        res.setHeader("content-type", "image/png");
        res.setHeader("content-length", "1000");
        res.end(Buffer.alloc(1000, 7));
        return;
      case "/notype":
        res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
        return;
      case "/gzip":
        res.setHeader("content-type", "text/plain");
        res.setHeader("content-encoding", "gzip");
        res.end(gzipSync("compressed hello"));
        return;
      case "/latin1":
        res.setHeader("content-type", "text/plain; charset=iso-8859-1");
        res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
        return;
      case "/missing":
        res.statusCode = 404;
        res.setHeader("content-type", "text/html");
        res.end("<h1>Not here</h1>");
        return;
      case "/host":
        res.setHeader("content-type", "text/plain");
        res.end(req.headers.host ?? "");
        return;
      case "/big":
        res.setHeader("content-type", "text/plain");
        streamForever(res, Buffer.alloc(64 * 1024, 97), 1, 5 * 1024 * 1024);
        return;
      case "/slow":
        res.setHeader("content-type", "text/plain");
        streamForever(res, Buffer.from("."), 100, Number.POSITIVE_INFINITY);
        return;
      case "/hang":
        return;
      case "/redirect":
        res.statusCode = 302;
        res.setHeader("location", url.searchParams.get("to") ?? "/page");
        res.end();
        return;
      case "/loop":
        res.statusCode = 301;
        res.setHeader("location", "/loop");
        res.end();
        return;
      default:
        res.statusCode = 500;
        res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  hits = [];
});

async function refusal(promise: Promise<unknown>): Promise<BuiltinRefusal> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(BuiltinRefusal);
  return error as BuiltinRefusal;
}

describe("fetchUrl: address checks", () => {
  it("refuses the local server under the default policy, before connecting", async () => {
    const error = await refusal(fetchUrl({ url: `${origin}/page` }, ctx));
    expect(error.code).toBe("blocked_address");
    expect(hits).toEqual([]);
  });

  it("refuses a public-looking name the resolver maps to loopback or metadata", async () => {
    for (const address of ["127.0.0.1", "169.254.169.254", "::ffff:127.0.0.1"]) {
      const resolve = resolveTo({ "docs.example.com": address });
      const error = await refusal(
        fetchUrl({ url: `http://docs.example.com:${port}/page` }, ctx, { resolve }),
      );
      expect(error.code).toBe("blocked_address");
      expect(error.message).toContain(`resolves to ${address}`);
    }
    expect(hits).toEqual([]);
  });

  it("connects to the vetted address, not whatever DNS says later", async () => {
    let lookups = 0;
    const resolve: Resolver = async () => {
      lookups += 1;
      return [{ address: "127.0.0.1", family: 4 }];
    };
    // 'docs.test' does not exist in real DNS: success proves the socket used the vetted address.
    const result = await fetchUrl({ url: `http://docs.test:${port}/host` }, ctx, {
      ...onlyLocalServer,
      resolve,
    });
    expect(result.text).toContain(`docs.test:${port}`);
    expect(lookups).toBe(1);
  });

  it.each([
    ["a name resolving to a private address", "http://internal.test:PORT/page", "10.0.0.5"],
    ["the metadata address", "http://169.254.169.254/latest/meta-data/", "169.254.169.254"],
    ["IPv6 loopback", "http://[::1]:PORT/page", "::1"],
    ["a decimal loopback", "http://2130706433:PORT/page", "127.0.0.1"],
    ["localhost", "http://localhost:PORT/page", "localhost"],
  ])("refuses a redirect from an allowed server to %s", async (_label, target, named) => {
    const to = target.replace("PORT", String(port));
    const resolve = resolveTo({ "internal.test": "10.0.0.5" });
    // Allow the first hop only (its exact URL), so the redirect target meets the strict policy.
    let first = true;
    const error = await refusal(
      fetchUrl({ url: `${origin}/redirect?to=${encodeURIComponent(to)}` }, ctx, {
        resolve,
        isAllowedAddress: (address) => {
          const ok = first && address === "127.0.0.1";
          first = false;
          return ok;
        },
      }),
    );
    expect(error.code).toBe("blocked_address");
    expect(error.message).toContain(named);
    expect(hits).toEqual(["/redirect"]);
  });

  it("follows allowed redirects, records them, and stops redirect loops", async () => {
    const result = await fetchUrl({ url: `${origin}/redirect?to=/json` }, ctx, onlyLocalServer);
    expect(result).toMatchObject({
      finalUrl: `${origin}/json`,
      redirects: [`${origin}/json`],
      status: 200,
    });
    expect(result.text).toContain("after 1 redirect");
    const loop = await refusal(
      fetchUrl({ url: `${origin}/loop` }, ctx, { ...onlyLocalServer, maxRedirects: 3 }),
    );
    expect(loop.code).toBe("too_many_redirects");
    expect(hits.filter((hit) => hit === "/loop")).toHaveLength(4);
    const scheme = await refusal(
      fetchUrl(
        { url: `${origin}/redirect?to=${encodeURIComponent("file:///etc/passwd")}` },
        ctx,
        onlyLocalServer,
      ),
    );
    expect(scheme.code).toBe("unsupported_scheme");
  });
});

describe("fetchUrl: content", () => {
  it("turns an HTML page into markdown with its title and absolute links", async () => {
    const result = await fetchUrl({ url: `${origin}/page` }, ctx, onlyLocalServer);
    expect(result).toMatchObject({
      status: 200,
      format: "markdown",
      title: "Local Docs",
      contentType: "text/html",
    });
    expect(result.text).toBe(
      `# Local Docs\nFetched ${origin}/page (HTTP 200, text/html)\n\n# Welcome\n\nSee [the guide](${origin}/guide).`,
    );
    expect(result.text).not.toContain("evil");
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });

  it("returns JSON and text as is, decoding gzip and declared charsets", async () => {
    expect((await fetchUrl({ url: `${origin}/json` }, ctx, onlyLocalServer)).text).toContain(
      '{"ok":true}',
    );
    expect((await fetchUrl({ url: `${origin}/gzip` }, ctx, onlyLocalServer)).text).toContain(
      "compressed hello",
    );
    expect((await fetchUrl({ url: `${origin}/latin1` }, ctx, onlyLocalServer)).text).toContain(
      "café",
    );
  });

  it("summarises non-text content by type and size instead of returning it", async () => {
    const image = await fetchUrl({ url: `${origin}/image` }, ctx, onlyLocalServer);
    expect(image).toMatchObject({ format: "summary", bytes: 0 });
    expect(image.text).toContain("Not shown: the content is image/png (1000 bytes), not text.");
    const untyped = await fetchUrl({ url: `${origin}/notype` }, ctx, onlyLocalServer);
    expect(untyped.format).toBe("summary");
    expect(untyped.text).toContain("is not text");
  });

  it("returns error pages with their status", async () => {
    const result = await fetchUrl({ url: `${origin}/missing` }, ctx, onlyLocalServer);
    expect(result.status).toBe(404);
    expect(result.text).toContain("HTTP 404");
    expect(result.text).toContain("# Not here");
  });
});

describe("fetchUrl: caps", () => {
  it("stops downloading at max_bytes and says it was cut", async () => {
    bigClosedEarly = false;
    const result = await fetchUrl(
      { url: `${origin}/big`, max_bytes: 10_000 },
      ctx,
      onlyLocalServer,
    );
    expect(result).toMatchObject({ bytes: 10_000, truncated: true, format: "text" });
    expect(result.text).toContain("cut at 10000 bytes");
    await expect.poll(() => bigClosedEarly).toBe(true);
  });

  it("lowers max_bytes to the configured ceiling", async () => {
    const result = await fetchUrl({ url: `${origin}/big`, max_bytes: 50_000 }, ctx, {
      ...onlyLocalServer,
      maxBytesLimit: 20_000,
    });
    expect(result.bytes).toBe(20_000);
  });

  it("gives up at the deadline, whether the server trickles or never answers", async () => {
    for (const path of ["/slow", "/hang"]) {
      const started = Date.now();
      const error = await refusal(
        fetchUrl({ url: `${origin}${path}` }, ctx, { ...onlyLocalServer, timeoutMs: 300 }),
      );
      expect(error.code).toBe("timeout");
      expect(error.message).toContain("longer than 300 ms");
      expect(Date.now() - started).toBeLessThan(2000);
    }
  });

  it("rejects with the signal's reason when cancelled", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("cancelled by user")), 100);
    await expect(
      fetchUrl(
        { url: `${origin}/slow` },
        { workspace: "/", signal: controller.signal },
        onlyLocalServer,
      ),
    ).rejects.toThrow("cancelled by user");
  });
});
