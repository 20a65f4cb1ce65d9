import type { IncomingMessage } from "node:http";
import type { BuiltinContext } from "../builtin-context.js";
import { BuiltinRefusal, isBuiltinRefusal } from "../builtin-refusal.js";
import { looksBinary, SNIFF_BYTES } from "../files/binary-content.js";
import { type ContentKind, decodeBody, parseContentType } from "./content-kind.js";
import type { FetchUrlArgs } from "./fetch-url.input.js";
import { htmlToMarkdown } from "./html-to-markdown.js";
import { requestPinned } from "./pinned-request.effect.js";
import { readCappedBody } from "./read-body.js";
import { parseFetchUrl, type TargetPolicy, vetTarget } from "./vet-target.effect.js";

/** Settings for `fetch_url`; the address policy fields default to strict (public only). */
export interface FetchUrlOptions extends TargetPolicy {
  /** Body bytes kept when the call gives no `max_bytes`. */
  defaultMaxBytes?: number;
  /** Ceiling on `max_bytes`; larger requests are lowered to it. */
  maxBytesLimit?: number;
  /** Total deadline for the fetch, redirects and body included. */
  timeoutMs?: number;
  /** Redirects followed (each one re-checked) before giving up. */
  maxRedirects?: number;
  /** Sent as `User-Agent`. */
  userAgent?: string;
}

/** What `fetch_url` returns. */
export interface FetchUrlResult {
  /** The URL as asked for (normalised). */
  url: string;
  /** The URL the content came from, after redirects. */
  finalUrl: string;
  /** Each redirect target in order. */
  redirects: string[];
  /** HTTP status of the final response. */
  status: number;
  /** Media type, e.g. `text/html`, or null when the server sent none. */
  contentType: string | null;
  /** How `text` presents the body: converted HTML, text as sent, or a summary of non-text. */
  format: "markdown" | "text" | "summary";
  /** Body bytes received (at most the cap). */
  bytes: number;
  /** True when the body was longer than the cap and was cut off. */
  truncated: boolean;
  /** The page title for HTML, else null. */
  title: string | null;
  /** Header line, content and notes, for the model. */
  text: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetch an http(s) URL on the public internet. The host is checked after DNS resolution (every
 * address must be public) and again on every redirect, and the connection goes to the vetted
 * address only. The body is streamed under a byte cap and a total deadline; HTML becomes
 * markdown, text and JSON are returned as text, other types are summarised (type and size).
 *
 * @example
 * ```ts
 * declare const ctx: import("../builtin-context.js").BuiltinContext;
 * const page = await fetchUrl({ url: "https://example.com/" }, ctx);
 * page.text; // "# Example Domain\nFetched https://example.com/ (HTTP 200, text/html)\n\n…"
 * ```
 */
export async function fetchUrl(
  args: FetchUrlArgs,
  ctx: BuiltinContext,
  options: FetchUrlOptions = {},
): Promise<FetchUrlResult> {
  const {
    defaultMaxBytes = 1024 * 1024,
    maxBytesLimit = 10 * 1024 * 1024,
    timeoutMs = 30_000,
    maxRedirects = 5,
    userAgent = "docket-fetch/0.1",
  } = options;
  ctx.signal.throwIfAborted();
  const start = parseFetchUrl(args.url);
  const maxBytes = Math.min(args.max_bytes ?? defaultMaxBytes, maxBytesLimit);
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([ctx.signal, deadline]);
  const headers = {
    "user-agent": userAgent,
    accept: "text/html, text/*;q=0.9, application/json;q=0.9, */*;q=0.5",
    "accept-encoding": "identity",
  };
  const redirects: string[] = [];
  let url = start;
  try {
    for (;;) {
      const target = await untilAborted(vetTarget(url, options), signal);
      const response = await requestPinned(target, { signal, headers });
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (!REDIRECTS.has(status) || location === undefined) {
        return await present(response, { url: start, finalUrl: url, redirects, maxBytes });
      }
      response.destroy();
      if (redirects.length >= maxRedirects) {
        throw new BuiltinRefusal(
          "too_many_redirects",
          `Refused to follow more than ${maxRedirects} redirects from ${start.href} (last: ${url.href}).`,
        );
      }
      url = parseFetchUrl(new URL(location, url).href);
      redirects.push(url.href);
    }
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (deadline.aborted) {
      throw new BuiltinRefusal(
        "timeout",
        `Fetching ${url.href} took longer than ${timeoutMs} ms and was stopped.`,
      );
    }
    if (isBuiltinRefusal(error)) throw error;
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new BuiltinRefusal("fetch_failed", `Fetching ${url.href} failed: ${reason}.`, {
      cause: error,
    });
  }
}

async function present(
  response: IncomingMessage,
  where: { url: URL; finalUrl: URL; redirects: string[]; maxBytes: number },
): Promise<FetchUrlResult> {
  const type = parseContentType(response.headers["content-type"]);
  const result: FetchUrlResult = {
    url: where.url.href,
    finalUrl: where.finalUrl.href,
    redirects: where.redirects,
    status: response.statusCode ?? 0,
    contentType: type.mime,
    format: "summary",
    bytes: 0,
    truncated: false,
    title: null,
    text: "",
  };
  if (type.kind === "other") {
    response.destroy();
    const length = response.headers["content-length"];
    result.text = `${headline(result)}\n\nNot shown: the content is ${type.mime}${length === undefined ? "" : ` (${length} bytes)`}, not text.`;
    return result;
  }
  const body = await readCappedBody(response, where.maxBytes);
  result.bytes = body.bytes.length;
  result.truncated = body.truncated;
  let kind: ContentKind = type.kind;
  if (kind === "unknown") {
    const sample = body.bytes.subarray(0, SNIFF_BYTES);
    kind = looksBinary(sample)
      ? "other"
      : /^\s*<(!doctype html|html)/i.test(sample.toString("latin1"))
        ? "html"
        : "text";
  }
  let content: string;
  if (kind === "other") {
    content = `Not shown: the content (no declared type, ${body.bytes.length}${body.truncated ? "+" : ""} bytes) is not text.`;
  } else if (kind === "html") {
    const page = htmlToMarkdown(decodeBody(body.bytes, type.charset), where.finalUrl.href);
    result.format = "markdown";
    result.title = page.title ?? null;
    content = page.markdown;
  } else {
    result.format = "text";
    content = decodeBody(body.bytes, type.charset);
  }
  const cut = body.truncated
    ? `\n\n… cut at ${where.maxBytes} bytes; the rest was not downloaded (max_bytes raises the cap).`
    : "";
  const title = result.title === null ? "" : `# ${result.title}\n`;
  result.text = `${title}${headline(result)}\n\n${content}${cut}`;
  return result;
}

function headline(result: FetchUrlResult): string {
  const hops = result.redirects.length;
  const via = hops === 0 ? "" : `, after ${hops} redirect${hops === 1 ? "" : "s"}`;
  return `Fetched ${result.finalUrl} (HTTP ${result.status}, ${result.contentType ?? "no content type"}${via})`;
}

/** DNS lookups take no signal; stop waiting for one when the fetch is cancelled. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
