import { APICallError } from "@ai-sdk/provider";
import { isDocketError } from "../errors/docket-error.js";
import { maskSecrets } from "../shared/mask-secrets.js";

/** Why a model request failed, in a form the loop can act on and a person can read. */
export interface ModelFailure {
  readonly kind:
    | "key_missing"
    | "unauthorised"
    | "rate_limited"
    | "server_error"
    | "unreachable"
    | "context_length"
    | "cancelled"
    | "invalid_request"
    | "other";
  /** Worth trying again after a pause. */
  readonly retryable: boolean;
  /** Milliseconds the provider asked us to wait, when it said. */
  readonly retryAfterMs: number | undefined;
  readonly message: string;
}

const CONTEXT_LENGTH =
  /context.?(?:length|limit|window|size)|prompt is too long|too many tokens|maximum.{0,20}tokens/i;

function retryAfter(
  headers: Record<string, string> | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number(lower["retry-after-ms"]);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = lower["retry-after"];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Providers stream errors as plain objects (`{ type, message }` or `{ error: { … } }`), not Errors. */
function providerErrorPayload(
  error: unknown,
): { type?: string; code?: string; message?: string } | undefined {
  if (typeof error !== "object" || error === null || error instanceof Error) return undefined;
  const inner = (error as { error?: unknown }).error;
  const source = (typeof inner === "object" && inner !== null ? inner : error) as Record<
    string,
    unknown
  >;
  const pick = (key: string) =>
    typeof source[key] === "string" ? (source[key] as string) : undefined;
  const payload = { type: pick("type"), code: pick("code"), message: pick("message") };
  return payload.type || payload.code || payload.message ? payload : undefined;
}

/**
 * Classify an error from a provider package into a `ModelFailure` with a clear message, with
 * credentials in it masked (providers echo keys, headers and proxy URLs).
 *
 * @example
 * ```ts
 * import { setTimeout as sleep } from "node:timers/promises";
 * declare const error: unknown; // what the provider call threw
 * const failure = classifyModelError(error);
 * if (failure.retryable) await sleep(failure.retryAfterMs ?? 1000);
 * ```
 */
export function classifyModelError(error: unknown, signal?: AbortSignal): ModelFailure {
  const failure = classify(error, signal);
  return { ...failure, message: maskSecrets(failure.message) };
}

function classify(error: unknown, signal: AbortSignal | undefined): ModelFailure {
  const base = { retryAfterMs: undefined, retryable: false };
  if (signal?.aborted || (error as { name?: string })?.name === "AbortError") {
    return { ...base, kind: "cancelled", message: "The model request was cancelled." };
  }
  if (isDocketError(error, "model_key_missing"))
    return { ...base, kind: "key_missing", message: error.message };
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const body = `${error.message} ${error.responseBody ?? ""}`;
    const where = new URL(error.url).host;
    if (status === 401 || status === 403) {
      return {
        ...base,
        kind: "unauthorised",
        message: `The model provider at ${where} refused the API key (HTTP ${status}). Check the key.`,
      };
    }
    if (status === 429) {
      return {
        kind: "rate_limited",
        retryable: true,
        retryAfterMs: retryAfter(error.responseHeaders),
        message: `The model provider at ${where} is rate limiting requests (HTTP 429).`,
      };
    }
    if (status !== undefined && (status === 400 || status === 413) && CONTEXT_LENGTH.test(body)) {
      return {
        ...base,
        kind: "context_length",
        message: `The conversation no longer fits the model's context window (HTTP ${status}). Start a new session or lower limits.context_bytes.`,
      };
    }
    if (status !== undefined && status >= 500) {
      return {
        kind: "server_error",
        retryable: true,
        retryAfterMs: retryAfter(error.responseHeaders),
        message: `The model provider at ${where} had an error (HTTP ${status}).`,
      };
    }
    if (status === undefined) {
      return {
        ...base,
        kind: "unreachable",
        retryable: true,
        message: `The model provider at ${where} could not be reached (${error.message}).`,
      };
    }
    return {
      ...base,
      kind: "invalid_request",
      message: `The model provider at ${where} rejected the request (HTTP ${status}): ${error.message}`,
    };
  }
  const payload = providerErrorPayload(error);
  if (payload) {
    const label = `${payload.type ?? ""} ${payload.code ?? ""}`;
    const words = payload.message ?? label.trim();
    if (/rate_limit/i.test(label))
      return {
        kind: "rate_limited",
        retryable: true,
        retryAfterMs: undefined,
        message: `The model provider is rate limiting requests (${words}).`,
      };
    if (CONTEXT_LENGTH.test(words) || /context_length/i.test(label)) {
      return {
        ...base,
        kind: "context_length",
        message: `The conversation no longer fits the model's context window (${words}).`,
      };
    }
    if (/overload|api_error|server_error|internal|unavailable|timeout/i.test(label)) {
      return {
        kind: "server_error",
        retryable: true,
        retryAfterMs: undefined,
        message: `The model provider had an error (${words}).`,
      };
    }
    return { ...base, kind: "other", message: `The model request failed: ${words}` };
  }
  const code = causeCode(error);
  if (
    code &&
    [
      "ECONNREFUSED",
      "ENOTFOUND",
      "ECONNRESET",
      "ETIMEDOUT",
      "EAI_AGAIN",
      "UND_ERR_SOCKET",
      "UND_ERR_CONNECT_TIMEOUT",
    ].includes(code)
  ) {
    return {
      ...base,
      kind: "unreachable",
      retryable: true,
      message: `The model provider could not be reached (${code}).`,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { ...base, kind: "other", message: `The model request failed: ${message.split("\n")[0]}` };
}
