/**
 * The text of one chain link that holds several events (the events of one read call, ADR
 * 0077): their canonical JSON texts as a JSON array, one per line. Canonical JSON never
 * contains a raw newline, so `,\n` is found only between two events and the text splits back
 * without parsing. The link's hash is `linkHash` over this text, once for all of its events.
 *
 * @example
 * ```ts
 * joinedLinkText(['{"type":"requested"}', '{"type":"finished"}']);
 * // '[{"type":"requested"},\n{"type":"finished"}]'
 * ```
 */
export function joinedLinkText(events: readonly string[]): string {
  let text = `[${events[0] ?? ""}`;
  for (let i = 1; i < events.length; i += 1) text += `,\n${events[i]}`;
  return `${text}]`;
}

/**
 * The events of a link text `joinedLinkText` wrote; undefined when the text is not one (a
 * single event is an object, a row of an older docket's packed read call joins objects by
 * newlines). Only the shape is checked: the link's hash says whether the events are the ones
 * written.
 *
 * @example
 * ```ts
 * splitJoinedLink('[{"a":1},\n{"b":2}]'); // ['{"a":1}', '{"b":2}']
 * splitJoinedLink('{"a":1}'); // undefined
 * ```
 */
export function splitJoinedLink(text: string): string[] | undefined {
  if (!text.startsWith("[") || !text.endsWith("]") || text.length < 2) return undefined;
  return text.slice(1, -1).split(",\n");
}
