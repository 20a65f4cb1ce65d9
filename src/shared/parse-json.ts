/**
 * Parse JSON text as `JSON.parse` should, whatever V8 this runs on.
 *
 * V8's JSON.parse (Node 24 and 26 at least; nodejs/node#63785) can read an object key written
 * with an escape as another key the process has seen before: after any object held the key
 * `a\`, the text `{"a\n":1}` may come back as `{"a\\":1}`. The wrong key is the raw text of the
 * key cut to the decoded key's length, so it always holds the backslash the escape began with;
 * a key JSON.parse returns without a backslash is the one written. The audit trail re-reads what
 * it stored, the checkpoint reads what a model sent, and a hook reads what its agent sent, so a
 * key read wrong would be a false alarm of tampering or an argument nobody asked for.
 *
 * The native parse stays the fast path: the text is checked afterwards (no backslash in it, or
 * no key in the value with one: the value is what was written). Only a value with such a key,
 * which is rare, is read again by `parseJsonExactly`, which decodes every key alone.
 *
 * Throws JSON.parse's SyntaxError for text that is not JSON.
 *
 * @example
 * ```ts
 * parseJson('{"a\\n":1}'); // { "a\n": 1 }, whatever objects this process built before
 * ```
 */
export function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (text.indexOf("\\") === -1 || !hasKeyWithBackslash(value)) return value;
  return parseJsonExactly(text);
}

/**
 * Whether any object in a parsed JSON value has a key holding a backslash: the only keys V8's
 * JSON.parse can have read wrong (see `parseJson`). Iterative, for any depth; own keys only.
 *
 * @example
 * ```ts
 * hasKeyWithBackslash({ a: [{ "b\\c": 1 }] }); // true
 * hasKeyWithBackslash({ a: "b\\c" }); // false: a value, not a key
 * ```
 */
export function hasKeyWithBackslash(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== "object" || next === null) continue;
    if (Array.isArray(next)) {
      for (const item of next) if (typeof item === "object" && item !== null) pending.push(item);
      continue;
    }
    for (const key of Object.keys(next)) {
      if (key.indexOf("\\") !== -1) return true;
      const item = (next as Record<string, unknown>)[key];
      if (typeof item === "object" && item !== null) pending.push(item);
    }
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Where the string token opening at `start` ends: the index of its closing quote. The text must
 * be valid JSON (JSON.parse accepted it).
 *
 * @example
 * ```ts
 * stringEnd('{"a\\"b":1}', 1); // 6
 * ```
 */
export function stringEnd(text: string, start: number): number {
  let end = start + 1;
  while (end < text.length) {
    const code = text.charCodeAt(end);
    if (code === BACKSLASH) end += 2;
    else if (code === QUOTE) return end;
    else end += 1;
  }
  throw new SyntaxError(`Unterminated string in JSON at position ${start}`);
}

/**
 * The string a token of valid JSON holds, from its opening quote at `start` to its closing
 * quote at `end`. A lone string is decoded by JSON.parse, which misreads only object keys.
 *
 * @example
 * ```ts
 * stringToken('["a\\nb"]', 1, 6); // "a\nb", with a newline between a and b
 * ```
 */
export function stringToken(text: string, start: number, end: number): string {
  const inner = text.slice(start + 1, end);
  return inner.indexOf("\\") === -1 ? inner : (JSON.parse(text.slice(start, end + 1)) as string);
}

/** One open container while `parseJsonExactly` walks the text. */
type Frame =
  | { readonly kind: "array"; readonly value: unknown[] }
  | { readonly kind: "object"; readonly value: Record<string, unknown>; key: string | undefined };

/**
 * Read text already known to be valid JSON (JSON.parse accepted it) without JSON.parse's object
 * parser: each string and number token is decoded alone, where V8 has nothing to confuse it with,
 * and objects are built by defining their keys. Iterative, so it reads any depth JSON.parse read.
 * It does not validate: text that is not JSON gives a SyntaxError or a value, never a hang.
 *
 * @example
 * ```ts
 * parseJsonExactly('{"a\\n":[1,"x"]}'); // { "a\n": [1, "x"] }
 * ```
 */
export function parseJsonExactly(text: string): unknown {
  const stack: Frame[] = [];
  let root: unknown;
  let i = 0;
  const place = (item: unknown): void => {
    const frame = stack[stack.length - 1];
    if (frame === undefined) root = item;
    else if (frame.kind === "array") frame.value.push(item);
    else if (frame.key === undefined) frame.key = item as string;
    else {
      // Defined, not assigned: "__proto__" is an own key, as JSON.parse makes it.
      Object.defineProperty(frame.value, frame.key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      frame.key = undefined;
    }
  };
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = stringEnd(text, i);
      place(stringToken(text, i, end));
      i = end + 1;
    } else if (code === 0x7b || code === 0x5b) {
      const frame: Frame =
        code === 0x7b
          ? { kind: "object", value: {}, key: undefined }
          : { kind: "array", value: [] };
      stack.push(frame);
      i += 1;
    } else if (code === 0x7d || code === 0x5d) {
      const frame = stack.pop();
      if (frame === undefined) throw new SyntaxError(`Unexpected close in JSON at position ${i}`);
      place(frame.value);
      i += 1;
    } else if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      let end = i + 1;
      while (end < text.length && /[0-9eE+\-.]/.test(text.charAt(end))) end += 1;
      place(Number(text.slice(i, end)));
      i = end;
    } else if (code === 0x74) {
      place(true);
      i += 4;
    } else if (code === 0x66) {
      place(false);
      i += 5;
    } else if (code === 0x6e) {
      place(null);
      i += 4;
    } else {
      // Whitespace, ":" and ",": the structure is already known to be valid.
      i += 1;
    }
  }
  if (stack.length > 0) throw new SyntaxError("Unexpected end of JSON input");
  return root;
}
