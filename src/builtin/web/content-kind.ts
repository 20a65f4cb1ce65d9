/** How a response body is presented to the model. */
export type ContentKind = "html" | "text" | "other" | "unknown";

const TEXT_APPLICATION_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/x-javascript",
  "application/ecmascript",
  "application/x-ndjson",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/graphql",
  "application/sql",
  "application/x-sh",
  "application/x-www-form-urlencoded",
]);

/** A parsed `Content-Type` header. */
export interface ContentType {
  /** Lower-case media type without parameters, or null when the header is missing. */
  mime: string | null;
  charset: string | undefined;
  kind: ContentKind;
}

/**
 * Parse a `Content-Type` header and decide how to present the body: HTML becomes markdown,
 * text, JSON, XML and friends are returned as text, anything else is only summarised; a
 * missing header is `unknown` (the caller sniffs the bytes).
 *
 * @example
 * ```ts
 * parseContentType("text/html; charset=ISO-8859-1"); // { mime: "text/html", charset: "iso-8859-1", kind: "html" }
 * parseContentType("application/vnd.api+json").kind; // "text"
 * ```
 */
export function parseContentType(header: string | undefined): ContentType {
  if (header === undefined || header.trim() === "") {
    return { mime: null, charset: undefined, kind: "unknown" };
  }
  const [type = "", ...params] = header.split(";");
  const mime = type.trim().toLowerCase();
  const charsetParam = params
    .map((p) => p.trim())
    .find((p) => p.toLowerCase().startsWith("charset="));
  const charset = charsetParam?.slice("charset=".length).replace(/^"|"$/g, "").trim().toLowerCase();
  return { mime, charset: charset === "" ? undefined : charset, kind: kindOf(mime) };
}

function kindOf(mime: string): ContentKind {
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  if (mime.startsWith("text/")) return "text";
  if (TEXT_APPLICATION_TYPES.has(mime) || mime.endsWith("+json") || mime.endsWith("+xml")) {
    return "text";
  }
  return "other";
}

/**
 * Decode body bytes with the declared charset, falling back to UTF-8 for unknown labels. A
 * character cut by the size cap at the very end is dropped rather than garbled.
 *
 * @example
 * ```ts
 * decodeBody(Buffer.from([0xe9]), "iso-8859-1"); // "é"
 * ```
 */
export function decodeBody(bytes: Uint8Array, charset: string | undefined): string {
  let label = charset ?? "utf-8";
  try {
    new TextDecoder(label);
  } catch {
    label = "utf-8";
  }
  return new TextDecoder(label).decode(bytes, { stream: true });
}
