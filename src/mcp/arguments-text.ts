import { randomUUID } from "node:crypto";

/**
 * The argument text the checkpoint reads for an MCP `tools/call`. The SDK has already parsed the
 * client's JSON, so `1e400` arrived as Infinity, which `JSON.stringify` would quietly turn into
 * `null` for the policy and the audit trail. A number that is not finite is written back as
 * `1e400` (or `-1e400`) instead, so the checkpoint refuses it as unreadable, as it does for a
 * model's text. `NaN` cannot come out of JSON and is written as `null`, as JSON.stringify does.
 *
 * @example
 * ```ts
 * argumentsText({ amount: 5 }); // '{"amount":5}'
 * argumentsText({ amount: Infinity }); // '{"amount":1e400}'
 * ```
 */
export function argumentsText(value: unknown): string {
  let marker: string | undefined;
  const text = JSON.stringify(value ?? {}, (_key, item: unknown) => {
    if (typeof item !== "number" || Number.isFinite(item) || Number.isNaN(item)) return item;
    marker ??= randomUUID();
    return `${marker}${item > 0 ? "+" : "-"}`;
  });
  if (marker === undefined) return text;
  return text.replaceAll(`"${marker}+"`, "1e400").replaceAll(`"${marker}-"`, "-1e400");
}
