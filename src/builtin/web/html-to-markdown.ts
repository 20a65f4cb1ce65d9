import { NodeHtmlMarkdown } from "node-html-markdown";

/** Elements whose content is never page text. */
const IGNORED = [
  "head",
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "canvas",
  "iframe",
  "object",
];

const converter = new NodeHtmlMarkdown({ ignore: IGNORED, keepDataImages: false });

/** A page converted for the model. */
export interface MarkdownPage {
  /** The document's `<title>`, if it has one. */
  title: string | undefined;
  markdown: string;
}

/**
 * Convert an HTML page to markdown for the model: scripts, styles and other non-text parts are
 * dropped, the title is pulled out, and relative links and images are made absolute against
 * `baseUrl` so the model can follow them.
 *
 * @example
 * ```ts
 * htmlToMarkdown('<title>Hi</title><h1>Hello</h1><a href="/docs">docs</a>', "https://example.com/a/");
 * // { title: "Hi", markdown: "# Hello\n\n[docs](https://example.com/docs)" }
 * ```
 */
export function htmlToMarkdown(html: string, baseUrl?: string): MarkdownPage {
  const rawTitle = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const title =
    rawTitle === undefined
      ? undefined
      : NodeHtmlMarkdown.translate(rawTitle).replace(/\s+/g, " ").trim();
  let markdown = converter.translate(html).trim();
  if (baseUrl !== undefined) markdown = absolutiseLinks(markdown, baseUrl);
  return { title: title === "" ? undefined : title, markdown };
}

function absolutiseLinks(markdown: string, baseUrl: string): string {
  return markdown.replace(/\]\(([^)\s]+)/g, (whole, href: string) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("#")) return whole;
    try {
      return `](${new URL(href, baseUrl).href}`;
    } catch {
      return whole;
    }
  });
}
