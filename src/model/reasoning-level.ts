import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { DocketError } from "../errors/docket-error.js";

/** The levels of LanguageModelV4's `reasoning` call option. */
export type ReasoningLevel = NonNullable<LanguageModelV4CallOptions["reasoning"]>;

/** The values `model.reasoning` and `--reasoning` accept, least to most. */
export const REASONING_LEVELS = [
  "provider-default",
  "none",
  "minimal",
  "low",
  "medium",
  "high",
  "xhigh",
  "max",
] as const satisfies readonly ReasoningLevel[];

/**
 * Check a reasoning level written by a person; `source` names where (`--reasoning`).
 *
 * @example
 * ```ts
 * checkReasoningLevel("high", "--reasoning"); // "high"
 * checkReasoningLevel("hihg", "--reasoning"); // throws config_invalid, naming the levels
 * ```
 */
export function checkReasoningLevel(value: string, source: string): ReasoningLevel {
  if ((REASONING_LEVELS as readonly string[]).includes(value)) return value as ReasoningLevel;
  throw new DocketError(
    "config_invalid",
    `${source}: "${value}" is not a reasoning level. Use one of: ${REASONING_LEVELS.join(", ")}.`,
  );
}
