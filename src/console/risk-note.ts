import { showControlCharacters as shown } from "../approval/format-arguments.js";
import type { Approval } from "../store/approval-record.js";
import { type Html, html } from "./html.js";

/** A label on what entered the session (`private`, `untrusted`), and where it came from. */
export interface SessionLabel {
  readonly label: string;
  readonly source: string | undefined;
}

// Argument names that say what a call reaches: files, addresses, commands.
const TOUCHING = ["path", "paths", "file", "files", "cwd", "directory", "url", "urls", "command"];
const MAX_SHOWN = 300;

/**
 * The labels a request's record carries, if it carries any: a list of names, or of
 * `{ label, source }`. A record without them (older, or a build without labels) has none; a
 * value of another shape is ignored rather than guessed at.
 *
 * @example
 * ```ts
 * import type { Approval } from "../store/approval-record.js";
 * declare const approval: Approval;
 * const recorded = { ...approval, labels: [{ label: "private", source: "read_file .env" }] };
 * labelsOf(recorded); // [{ label: "private", source: "read_file .env" }]
 * ```
 */
export function labelsOf(approval: Approval): SessionLabel[] {
  const value = (approval as { labels?: unknown }).labels;
  if (!Array.isArray(value)) return [];
  return value.flatMap((item): SessionLabel[] => {
    if (typeof item === "string") return [{ label: item, source: undefined }];
    const { label, source } = (item ?? {}) as { label?: unknown; source?: unknown };
    return typeof label === "string"
      ? [{ label, source: typeof source === "string" ? source : undefined }]
      : [];
  });
}

/**
 * What the call reaches, from its arguments: paths, addresses and commands, as the model gave
 * them (the policy resolved them against the workspace; this is for the approver's eye).
 *
 * @example
 * ```ts
 * touches({ path: "notes/a.md", content: "…" }); // ["path: notes/a.md"]
 * ```
 */
export function touches(args: unknown): string[] {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return [];
  return Object.entries(args).flatMap(([key, value]) => {
    if (!TOUCHING.includes(key)) return [];
    const text = typeof value === "string" ? value : JSON.stringify(value);
    return [`${key}: ${text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text}`];
  });
}

/**
 * The card's risk note, as definition-list rows: whether untrusted content came before the
 * call (from the request's own record), the session's labels with their sources when the
 * record has them, and what the call touches.
 *
 * @example
 * ```ts
 * import type { Approval } from "../store/approval-record.js";
 * import { html } from "./html.js";
 * declare const approval: Approval;
 * const args: unknown = JSON.parse(approval.canonicalArgs);
 * html`<dl>${riskRows(approval, args, "after fetch_url https://x (call c2)")}</dl>`;
 * ```
 */
export function riskRows(approval: Approval, args: unknown, untrusted: string | undefined): Html {
  const labels = labelsOf(approval);
  const reaches = touches(args);
  // The taint is part of the request's grant text from the checkpoint; a record without any
  // grant text (an older store) cannot say either way, so it says nothing.
  const taint = untrusted
    ? html`<dt>Taint</dt><dd class="tainted">⚠ tainted: ${shown(untrusted)}</dd>`
    : approval.grantText !== undefined
      ? html`<dt>Taint</dt><dd>none recorded before this request</dd>`
      : "";
  return html`${taint}
${labels.length > 0 ? html`<dt>Labels</dt><dd><ul class="labels">${labels.map((l) => html`<li><span class="tag">${shown(l.label)}</span>${l.source ? html` from ${shown(l.source)}` : ""}</li>`)}</ul></dd>` : ""}
${reaches.length > 0 ? html`<dt>Touches</dt><dd>${reaches.map((r) => html`<code>${shown(r)}</code><br>`)}</dd>` : ""}`;
}
