import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

type ContentBlock = CallToolResult["content"][number];

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function size(bytes: number): string {
  return `${bytes.toLocaleString("en-US")} bytes`;
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      // Binary media cannot reach a model as text; say what there was instead of dropping it.
      return `[${block.type}: ${block.mimeType}, ${size(base64Bytes(block.data))}]`;
    case "resource_link":
      return `[resource link: ${block.name} <${block.uri}>${block.description ? ` ${block.description}` : ""}]`;
    case "resource": {
      const { resource } = block;
      if ("text" in resource && typeof resource.text === "string") {
        return `[resource <${resource.uri}>]\n${resource.text}`;
      }
      const blob = "blob" in resource && typeof resource.blob === "string" ? resource.blob : "";
      return `[resource <${resource.uri}>${resource.mimeType ? ` ${resource.mimeType}` : ""}, ${size(base64Bytes(blob))}]`;
    }
    default:
      return `[unsupported content: ${String((block as { type?: unknown }).type)}]`;
  }
}

/**
 * The text a model reads for an MCP tool result: text blocks as they are, media and embedded
 * binaries as a one-line description, resources with their URI. Structured content is used only
 * when there are no content blocks (servers are asked to mirror it in text).
 *
 * @example
 * ```ts
 * shapeCallResult({ content: [{ type: "text", text: "Echo: hi" }] }); // "Echo: hi"
 * shapeCallResult({ content: [{ type: "image", data: "iVBO…", mimeType: "image/png" }] });
 * // "[image: image/png, 1,024 bytes]"
 * ```
 */
export function shapeCallResult(result: CallToolResult): string {
  const content = Array.isArray(result.content) ? result.content : [];
  if (content.length === 0 && result.structuredContent !== undefined) {
    return JSON.stringify(result.structuredContent);
  }
  return content.map(blockText).join("\n");
}

/**
 * The words of an `isError` result, on one line (a failed result's message is one line).
 *
 * @example
 * ```ts
 * errorText({ isError: true, content: [{ type: "text", text: "ENOENT:\nno such file" }] });
 * // "ENOENT: no such file"
 * ```
 */
export function errorText(result: CallToolResult): string {
  const text = shapeCallResult(result).replace(/\s+/g, " ").trim();
  return text === "" ? "the server reported an error without words" : text;
}
