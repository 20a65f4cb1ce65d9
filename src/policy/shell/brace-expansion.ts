/**
 * Bash brace expansion (`{a,b}`, `{1..3}`) on a word whose characters carry an "active" mask:
 * only unquoted, unescaped braces expand, exactly as in bash. The analyser needs it because
 * `r{m,}` or `{rm,-rf,/}` in command position runs `rm`.
 */

/** A word's text plus a mask of the same length: `1` marks an unquoted character, `0` a quoted one. */
export interface MaskedText {
  value: string;
  mask: string;
}

/** What brace expansion produced; `truncated` when the limit stopped it. */
export interface BraceExpansion {
  words: MaskedText[];
  truncated: boolean;
}

const SEQUENCE = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/;

function sequence(body: string, limit: number): string[] | null {
  const match = SEQUENCE.exec(body);
  if (match === null) return null;
  const [, from = "", to = "", stepText] = match;
  const numeric = /\d/.test(from) && /\d/.test(to);
  if (!numeric && (/\d/.test(from) || /\d/.test(to))) return null;
  const start = numeric ? Number.parseInt(from, 10) : from.charCodeAt(0);
  const end = numeric ? Number.parseInt(to, 10) : to.charCodeAt(0);
  const step = Math.abs(stepText === undefined ? 1 : Number.parseInt(stepText, 10)) || 1;
  const count = Math.floor(Math.abs(end - start) / step) + 1;
  if (count > limit) return null;
  const width = numeric && /^-?0\d/.test(from) ? from.replace("-", "").length : 0;
  const out: string[] = [];
  for (let k = 0, n = start; k < count; k++, n += start <= end ? step : -step) {
    out.push(numeric ? String(n).padStart(width, "0") : String.fromCharCode(n));
  }
  return out;
}

/** Find the leftmost active brace group that expands, with its alternatives. */
function firstGroup(
  text: MaskedText,
  limit: number,
): { open: number; close: number; alternatives: MaskedText[] } | null {
  const { value, mask } = text;
  for (let open = 0; open < value.length; open++) {
    if (value[open] !== "{" || mask[open] !== "1") continue;
    let nesting = 0;
    let close = -1;
    const commas: number[] = [];
    for (let j = open + 1; j < value.length; j++) {
      if (mask[j] !== "1") continue;
      const ch = value[j];
      if (ch === "{") nesting++;
      else if (ch === "}") {
        if (nesting === 0) {
          close = j;
          break;
        }
        nesting--;
      } else if (ch === "," && nesting === 0) commas.push(j);
    }
    if (close < 0) continue;
    if (commas.length > 0) {
      const bounds = [open, ...commas, close];
      const alternatives: MaskedText[] = [];
      for (let k = 0; k + 1 < bounds.length; k++) {
        const a = (bounds[k] as number) + 1;
        const b = bounds[k + 1] as number;
        alternatives.push({ value: value.slice(a, b), mask: mask.slice(a, b) });
      }
      return { open, close, alternatives };
    }
    const body = value.slice(open + 1, close);
    if (!mask.slice(open + 1, close).includes("0")) {
      const items = sequence(body, limit);
      if (items !== null) {
        return {
          open,
          close,
          alternatives: items.map((v) => ({ value: v, mask: "0".repeat(v.length) })),
        };
      }
    }
  }
  return null;
}

/**
 * Expand the active brace groups of a word, leftmost first, up to `limit` results.
 *
 * @example
 * ```ts
 * expandBraces({ value: "r{m,}", mask: "11111" }).words.map((w) => w.value); // ["rm", "r"]
 * expandBraces({ value: "{}", mask: "11" }).words.map((w) => w.value);       // ["{}"]
 * ```
 */
export function expandBraces(text: MaskedText, limit = 64): BraceExpansion {
  const done: MaskedText[] = [];
  const pending: MaskedText[] = [text];
  let truncated = false;
  let steps = 0;
  while (pending.length > 0) {
    const current = pending.shift() as MaskedText;
    // Bound the work, not only the output: nested groups multiply.
    if (++steps > limit * 2 || done.length >= limit) {
      truncated = true;
      break;
    }
    const group = firstGroup(current, limit);
    if (group === null) {
      done.push(current);
      continue;
    }
    const { open, close, alternatives } = group;
    const before = { value: current.value.slice(0, open), mask: current.mask.slice(0, open) };
    const after = { value: current.value.slice(close + 1), mask: current.mask.slice(close + 1) };
    const expanded = alternatives.map((alt) => ({
      value: before.value + alt.value + after.value,
      mask: before.mask + alt.mask + after.mask,
    }));
    pending.unshift(...expanded);
  }
  return { words: done.length > 0 ? done : [text], truncated };
}
