import {
  parseHttpTarget,
  type TargetPolicy,
  type TargetRefusal,
  type VettedTarget,
  vetHttpTarget,
} from "../../http-target/http-target.effect.js";
import { BuiltinRefusal } from "../builtin-refusal.js";

export type { Resolver, TargetPolicy, VettedTarget } from "../../http-target/http-target.effect.js";

// fetch_url's side of the neutral HTTP-target guard: a refusal becomes the BuiltinRefusal the
// checkpoint turns into words for the model.
const WORDING = { verb: "fetch" } as const;

/**
 * Parse a URL for `fetch_url` (see `parseHttpTarget`); a refused one throws a `BuiltinRefusal`.
 *
 * @example
 * ```ts
 * parseFetchUrl("http://2130706433/").hostname; // "127.0.0.1"
 * ```
 */
export function parseFetchUrl(input: string): URL {
  const parsed = parseHttpTarget(input, WORDING);
  if (parsed.status === "refused") throw asRefusal(parsed);
  return parsed.url;
}

/**
 * Where a `fetch_url` request may connect (see `vetHttpTarget`); a refused one throws.
 *
 * @example
 * ```ts
 * const target = await vetTarget(new URL("https://example.com/"), {});
 * target.address; // "93.184.215.14"
 * ```
 */
export async function vetTarget(url: URL, policy: TargetPolicy = {}): Promise<VettedTarget> {
  const verdict = await vetHttpTarget(url, policy, WORDING);
  if (verdict.status === "refused") throw asRefusal(verdict);
  return verdict.target;
}

const asRefusal = (refusal: TargetRefusal) =>
  new BuiltinRefusal(
    refusal.code,
    refusal.message,
    refusal.cause === undefined ? {} : { cause: refusal.cause },
  );
