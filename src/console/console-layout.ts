import { type Html, type HtmlValue, html } from "./html.js";

/** Who is looking at a page, for the header and the forms. */
export interface Viewer {
  readonly name: string;
  readonly csrf: string;
}

/**
 * The frame of every console page: the stylesheet and script docket serves itself (no inline
 * code, so the Content-Security-Policy can forbid it), the navigation, and sign-out as a form.
 *
 * @example
 * ```ts
 * import { html } from "./html.js";
 * const viewer = { name: "bob", csrf: "c5rf" };
 * layout({ title: "Inbox", viewer, body: html`<p>Nothing waits.</p>` }).toString();
 * ```
 */
export function layout({
  title,
  viewer,
  body,
  flash,
}: {
  title: string;
  viewer?: Viewer;
  body: HtmlValue;
  flash?: string | undefined;
}): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · docket</title>
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
<strong class="brand">docket</strong>
${
  viewer
    ? html`<nav aria-label="Console"><a href="/console/">Approvals</a> <a href="/console/decided">Decided</a> <a href="/console/sessions">Sessions</a></nav>
<form method="post" action="/console/sign-out" class="sign-out"><input type="hidden" name="_csrf" value="${viewer.csrf}"><span>Signed in as <b>${viewer.name}</b></span> <button type="submit">Sign out</button></form>`
    : ""
}
</header>
${viewer ? html`<p class="keys" id="keys-help">Keys: <kbd>j</kbd>/<kbd>k</kbd> or arrows move, <kbd>a</kbd> approve, <kbd>d</kbd> deny (each asks first), <kbd>/</kbd> search. <span id="keys-status" role="status" aria-live="polite"></span></p>` : ""}
<main id="main">
${flash ? html`<p class="flash" role="status">${flash}</p>` : ""}
${body}
</main>
</body>
</html>`;
}

/**
 * A time for people: ISO 8601 in UTC, to the second.
 *
 * @example
 * ```ts
 * when(0); // "1970-01-01 00:00:00Z"
 * ```
 */
export function when(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return "—";
  return new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "Z");
}
