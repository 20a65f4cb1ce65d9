/**
 * Decoding of bash ANSI-C quoting (`$'…'`), so that `$'\x72m'` is seen as the `rm` it runs.
 */

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

function isHex(ch: string | undefined): boolean {
  return ch !== undefined && /^[0-9a-fA-F]$/.test(ch);
}

/** Read up to `max` characters of `body` from `start` that satisfy `accept`. */
function take(body: string, start: number, max: number, accept: (ch: string) => boolean): string {
  let out = "";
  for (let i = start; i < body.length && out.length < max; i++) {
    const ch = body[i] as string;
    if (!accept(ch)) break;
    out += ch;
  }
  return out;
}

function fromCodePoint(code: number): string {
  // An out-of-range escape must not throw: the analyser never throws on input.
  return code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "\ufffd";
}

/**
 * Decode the body of an ANSI-C quoted string (the text between `$'` and `'`).
 *
 * @example
 * ```ts
 * decodeAnsiC("\\x72m"); // "rm"
 * decodeAnsiC("a\\tb");  // "a\tb"
 * ```
 */
export function decodeAnsiC(body: string): string {
  let out = "";
  let i = 0;
  while (i < body.length) {
    const ch = body[i] as string;
    if (ch !== "\\" || i + 1 >= body.length) {
      out += ch;
      i++;
      continue;
    }
    const next = body[i + 1] as string;
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      out += simple;
      i += 2;
    } else if (next === "x" && isHex(body[i + 2])) {
      const hex = take(body, i + 2, 2, (c) => isHex(c));
      out += fromCodePoint(Number.parseInt(hex, 16));
      i += 2 + hex.length;
    } else if ((next === "u" || next === "U") && isHex(body[i + 2])) {
      const hex = take(body, i + 2, next === "u" ? 4 : 8, (c) => isHex(c));
      out += fromCodePoint(Number.parseInt(hex, 16));
      i += 2 + hex.length;
    } else if (next >= "0" && next <= "7") {
      const oct = take(body, i + 1, 3, (c) => c >= "0" && c <= "7");
      out += fromCodePoint(Number.parseInt(oct, 8) & 0xff);
      i += 1 + oct.length;
    } else if (next === "c" && i + 2 < body.length) {
      out += String.fromCharCode((body.charCodeAt(i + 2) & 0x1f) >>> 0);
      i += 3;
    } else {
      // bash keeps unknown escapes verbatim, backslash included.
      out += ch + next;
      i += 2;
    }
  }
  return out;
}
