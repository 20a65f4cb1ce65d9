/** Markup docket wrote itself, safe to put on a page as it is. Build it with `html`. */
export class Html {
  readonly #text: string;
  /** Only `html` and `trustedHtml` make one: everything else reaches a page escaped. */
  constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/**
 * Escape text for HTML, in element content and in quoted attributes alike.
 *
 * @example
 * ```ts
 * escapeHtml('<img src=x onerror="alert(1)">'); // "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c);
}

/** What may stand in a `${…}` of `html`: text (escaped), numbers, markup, lists of them, or nothing. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false || value === true) return "";
  return escapeHtml(String(value));
}

/**
 * A tagged template for pages: every interpolated value is escaped unless it is `Html` already,
 * so text from the model, a tool or a request can never become markup. `false`, `null` and
 * `undefined` render nothing (for `cond && html\`…\``).
 *
 * @example
 * ```ts
 * const toolName = "<b>x</b>"; // model-supplied
 * html`<li>${toolName}</li>`.toString(); // "<li>&lt;b&gt;x&lt;/b&gt;</li>"
 * ```
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i += 1) out += render(values[i]) + (strings[i + 1] ?? "");
  return new Html(out);
}
