/** What the checkpoint takes from a call, whatever its shape: text for the record, and the raw parts. */
export interface CallFields {
  /** The id as text: the model's string, or a description of whatever else it sent. */
  readonly callId: string;
  /** The name as text, for results and the audit trail. */
  readonly name: string;
  /** What is wrong with the call's shape, in words, when its id or name is not a string. */
  readonly malformed: string | undefined;
  /** The arguments as sent: the checkpoint reads only a string. */
  readonly raw: unknown;
}

const MAX_DESCRIBED = 200;

/**
 * Text that stands for a value the model sent in place of a string, for results and the audit
 * trail. It never calls the value's own `toString` or `valueOf` (a null-prototype object has
 * none; a hostile one throws), and it keeps an array `["x"]` distinct from the name `x`.
 *
 * @example
 * ```ts
 * describeValue(["x"]); // '["x"]'
 * describeValue(Object.create(null)); // "{}"
 * describeValue(undefined); // ""
 * ```
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case "string":
      return value;
    case "undefined":
      return "";
    case "number":
    case "boolean":
    case "bigint":
      return `${value}`;
    case "symbol":
      return "[a symbol]";
    case "function":
      return "[a function]";
  }
  if (value === null) return "";
  try {
    const text = JSON.stringify(value);
    if (typeof text === "string") {
      return text.length > MAX_DESCRIBED ? `${text.slice(0, MAX_DESCRIBED)}…` : text;
    }
  } catch {
    // A cycle, a BigInt inside, a throwing toJSON or getter: fall through to the type alone.
  }
  return Array.isArray(value) ? "[an array]" : "[an object]";
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "missing";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

function field(call: unknown, key: "id" | "name" | "arguments"): unknown {
  if (typeof call !== "object" || call === null) return undefined;
  try {
    return (call as Record<string, unknown>)[key];
  } catch {
    // A getter or a Proxy that throws has sent nothing usable.
    return undefined;
  }
}

/**
 * Take a call apart without trusting its shape: model-supplied values are hostile, so nothing
 * here can throw. Only a string is ever taken as a tool's name, and only a string as an id (the id
 * is what the store keys a call's one run on, and what the model matches the result to).
 *
 * @example
 * ```ts
 * readCall({ id: "call_1", name: ["x"], arguments: "{}" });
 * // { callId: "call_1", name: '["x"]', raw: "{}",
 * //   malformed: 'the tool name must be a string, not an array ("[\\"x\\"]")' }
 * ```
 */
export function readCall(call: unknown): CallFields {
  const id = field(call, "id");
  const name = field(call, "name");
  const callId = describeValue(id);
  const text = describeValue(name);
  let malformed: string | undefined;
  if (typeof name !== "string") {
    malformed = `the tool name must be a string, not ${kindOf(name)} (${JSON.stringify(text.slice(0, 80))})`;
  } else if (typeof id !== "string") {
    malformed = `the call id must be a string, not ${kindOf(id)}`;
  }
  return { callId, name: text, malformed, raw: field(call, "arguments") };
}
