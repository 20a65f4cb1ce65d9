/**
 * How deeply a parsed JSON value nests (a scalar is 0, `{}` is 1), counted without recursion and
 * stopping once past `limit`: the answer is then `limit + 1`. A client's arguments can nest
 * 10,000 deep; recursive code (a schema library, `JSON.stringify`) would overflow the stack.
 *
 * @example
 * ```ts
 * jsonDepth({ a: [1] }, 64); // 2
 * ```
 */
export function jsonDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== "object") continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (deepest > limit) return limit + 1;
    for (const child of Object.values(item)) stack.push([child, here]);
  }
  return deepest;
}

/**
 * JSON text of a parsed JSON value without recursion, so that arguments too deep for
 * `JSON.stringify` can still reach the checkpoint as text (to be refused there, and recorded).
 * Keys are written in their order; numbers that are not finite are written as `null`.
 *
 * @example
 * ```ts
 * stringifyDeep({ a: [1, "x"] }); // '{"a":[1,"x"]}'
 * ```
 */
export function stringifyDeep(value: unknown): string {
  const parts: string[] = [];
  // Each entry is a value to write or a literal piece of text (closing brackets, commas, keys).
  const stack: ({ text: string } | { value: unknown })[] = [{ value }];
  while (stack.length > 0) {
    const next = stack.pop() as { text: string } | { value: unknown };
    if ("text" in next) {
      parts.push(next.text);
      continue;
    }
    const item = next.value;
    if (item === null || typeof item !== "object") {
      parts.push(
        typeof item === "number" && !Number.isFinite(item)
          ? "null"
          : (JSON.stringify(item) ?? "null"),
      );
      continue;
    }
    const isArray = Array.isArray(item);
    const entries = isArray ? item.map((child) => ["", child] as const) : Object.entries(item);
    parts.push(isArray ? "[" : "{");
    stack.push({ text: isArray ? "]" : "}" });
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      const [key, child] = entries[i] as readonly [string, unknown];
      stack.push({ value: child });
      const prefix = isArray ? "" : `${JSON.stringify(key)}:`;
      stack.push({ text: i > 0 ? `,${prefix}` : prefix });
    }
  }
  return parts.join("");
}
