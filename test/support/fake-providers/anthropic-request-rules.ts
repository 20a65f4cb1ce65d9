/**
 * The Messages API request rules fake-anthropic enforces, written from Anthropic's public API
 * reference and tool-use guide. Each returns the message a real `invalid_request_error` carries,
 * so a transcript bug fails a test the way it would fail in production.
 */

type Json = Record<string, unknown>;

const TOOL_ID = /^[a-zA-Z0-9_-]+$/;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function blocksOf(message: Json): Json[] {
  const { content } = message;
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

function toolUseIds(message: Json | undefined): string[] {
  if (message?.role !== "assistant") return [];
  return blocksOf(message)
    .filter((block) => block.type === "tool_use")
    .map((block) => String(block.id));
}

function checkTopLevel(body: Json): string | undefined {
  if (typeof body.model !== "string" || body.model === "") return "model: Field required";
  if (body.max_tokens === undefined) return "max_tokens: Field required";
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) {
    return "max_tokens: Input should be an integer greater than or equal to 1";
  }
  const { system, tools } = body;
  if (system !== undefined && typeof system !== "string") {
    if (!Array.isArray(system) || !system.every((b) => isObject(b) && b.type === "text")) {
      return "system: Input should be a string or a list of text blocks";
    }
  }
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return "tools: Input should be a valid list";
    for (const [index, tool] of tools.entries()) {
      if (!isObject(tool) || typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) {
        return `tools.${index}.custom.name: String should match pattern '${TOOL_NAME.source}'`;
      }
      if (tool.type === undefined || tool.type === "custom") {
        if (!isObject(tool.input_schema) || tool.input_schema.type !== "object") {
          return `tools.${index}.custom.input_schema.type: Input should be 'object'`;
        }
      }
    }
  }
  if (!Array.isArray(body.messages)) return "messages: Field required";
  if (body.messages.length === 0) return "messages: at least one message is required";
  return undefined;
}

function checkBlocks(message: Json, index: number, isLast: boolean): string | undefined {
  const { role, content } = message;
  if (typeof content !== "string" && !Array.isArray(content)) {
    return `messages.${index}.content: Input should be a valid string or list`;
  }
  const empty = typeof content === "string" ? content === "" : content.length === 0;
  if (empty && !(isLast && role === "assistant")) {
    return `messages.${index}: all messages must have non-empty content except for the optional final assistant message`;
  }
  for (const [position, block] of blocksOf(message).entries()) {
    const where = `messages.${index}.content.${position}`;
    if (block.type === "text" && (typeof block.text !== "string" || block.text === "")) {
      return `${where}.text: text content blocks must be non-empty`;
    }
    if (block.type === "tool_use") {
      if (role !== "assistant")
        return `${where}: tool_use blocks may only appear in assistant messages`;
      if (typeof block.id !== "string" || !TOOL_ID.test(block.id)) {
        return `${where}.tool_use.id: String should match pattern '${TOOL_ID.source}'`;
      }
      if (typeof block.name !== "string" || block.name === "")
        return `${where}.tool_use.name: Field required`;
      if (!isObject(block.input))
        return `${where}.tool_use.input: Input should be a valid dictionary`;
    }
    if (block.type === "tool_result") {
      if (role !== "user") return `${where}: tool_result blocks may only appear in user messages`;
      if (typeof block.tool_use_id !== "string" || !TOOL_ID.test(block.tool_use_id)) {
        return `${where}.tool_result.tool_use_id: String should match pattern '${TOOL_ID.source}'`;
      }
      if (block.is_error !== undefined && typeof block.is_error !== "boolean") {
        return `${where}.tool_result.is_error: Input should be a valid boolean`;
      }
    }
  }
  return undefined;
}

function checkToolResults(messages: Json[], index: number): string | undefined {
  const message = messages[index] as Json;
  if (message.role !== "user") return undefined;
  const asked = toolUseIds(messages[index - 1]);
  const blocks = blocksOf(message);
  const answered: string[] = [];
  let sawOther = false;
  for (const [position, block] of blocks.entries()) {
    if (block.type !== "tool_result") {
      sawOther = true;
      continue;
    }
    const id = String(block.tool_use_id);
    if (!asked.includes(id) || answered.includes(id)) {
      return `messages.${index}.content.${position}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
    if (sawOther) {
      return `messages.${index}.content.${position}: \`tool_result\` blocks must come first in a user message's content, before any other blocks.`;
    }
    answered.push(id);
  }
  // Stricter than the live API, which accepts results in any order: docket promises that every
  // request is answered in the order it was made, and this is where that promise is checked.
  const inOrder = asked.filter((id) => answered.includes(id));
  if (inOrder.some((id, position) => answered[position] !== id)) {
    return `messages.${index}: \`tool_result\` blocks answer the \`tool_use\` blocks of messages.${index - 1} out of order (${answered.join(", ")}; asked ${asked.join(", ")}).`;
  }
  return undefined;
}

/**
 * The first rule of the Messages API the request body breaks, as the message Anthropic's 400
 * `invalid_request_error` would carry; undefined when the body is acceptable.
 *
 * Roles must alternate strictly and the first message must be the user's. The live API now
 * merges consecutive same-role turns, but the provider package already does that merge, so a
 * repeated role here means docket or the package sent something malformed.
 *
 * @example
 * ```ts
 * findAnthropicRequestProblem({ model: "m", max_tokens: 1, messages: [] });
 * // "messages: at least one message is required"
 * ```
 */
export function findAnthropicRequestProblem(body: unknown): string | undefined {
  if (!isObject(body)) return "The request body is not valid JSON.";
  const topLevel = checkTopLevel(body);
  if (topLevel) return topLevel;
  const messages = body.messages as unknown[];
  const usedIds = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (!isObject(message)) return `messages.${index}: Input should be a valid dictionary`;
    if (message.role === "system") {
      return `messages.${index}.role: Unexpected role "system". The Messages API accepts a top-level \`system\` parameter, not "system" as an input message role.`;
    }
    if (message.role !== "user" && message.role !== "assistant") {
      return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    }
    if (index === 0 && message.role !== "user")
      return `messages: first message must use the "user" role`;
    const previous = messages[index - 1];
    if (isObject(previous) && previous.role === message.role) {
      return `messages: roles must alternate between "user" and "assistant", but found multiple "${message.role}" roles in a row`;
    }
    const blockProblem = checkBlocks(message, index, index === messages.length - 1);
    if (blockProblem) return blockProblem;
    const resultProblem = checkToolResults(messages as Json[], index);
    if (resultProblem) return resultProblem;
    const asked = toolUseIds(message);
    // The live API refuses a conversation that carries one tool_use id twice.
    for (const id of asked) {
      if (usedIds.has(id)) return `messages.${index}: \`tool_use\` ids must be unique: ${id}`;
      usedIds.add(id);
    }
    if (asked.length > 0) {
      const next = messages[index + 1];
      const answered = isObject(next) && next.role === "user" ? blocksOf(next) : [];
      const answeredIds = answered
        .filter((b) => b.type === "tool_result")
        .map((b) => String(b.tool_use_id));
      const missing = asked.filter((id) => !answeredIds.includes(id));
      if (missing.length > 0) {
        return `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
  }
  return undefined;
}
