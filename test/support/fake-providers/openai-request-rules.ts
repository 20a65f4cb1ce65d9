/**
 * The Chat Completions request rules fake-openai enforces, written from OpenAI's public API
 * reference. Each problem carries the message and `param` a real 400 `invalid_request_error`
 * would, so a transcript bug fails a test the way it would fail in production.
 */

type Json = Record<string, unknown>;

/** Why OpenAI would reject a request body. */
export interface OpenAIRequestProblem {
  readonly message: string;
  readonly param: string | null;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ROLES = ["system", "developer", "user", "assistant", "tool"];

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function unanswered(ids: readonly string[], assistantIndex: number): OpenAIRequestProblem {
  return {
    message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids.join(", ")}`,
    param: `messages.[${assistantIndex}].role`,
  };
}

function checkTopLevel(body: Json): OpenAIRequestProblem | undefined {
  if (typeof body.model !== "string" || body.model === "") {
    return { message: "you must provide a model parameter", param: null };
  }
  if (!Array.isArray(body.messages))
    return { message: "Missing required parameter: 'messages'.", param: "messages" };
  if (body.messages.length === 0)
    return { message: "[] is too short - 'messages'", param: "messages" };
  if (body.stream_options !== undefined && body.stream !== true) {
    return {
      message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      param: "stream_options",
    };
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools))
      return { message: "Invalid type for 'tools': expected an array.", param: "tools" };
    for (const [index, tool] of body.tools.entries()) {
      const name = isObject(tool) && isObject(tool.function) ? tool.function.name : undefined;
      if (
        !isObject(tool) ||
        tool.type !== "function" ||
        typeof name !== "string" ||
        !TOOL_NAME.test(name)
      ) {
        return {
          message: `Invalid 'tools[${index}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          param: `tools[${index}].function.name`,
        };
      }
    }
  }
  return undefined;
}

function checkToolCalls(message: Json, index: number): OpenAIRequestProblem | undefined {
  const calls = message.tool_calls as unknown[];
  for (const [position, call] of calls.entries()) {
    const where = `messages.[${index}].tool_calls.[${position}]`;
    if (!isObject(call) || typeof call.id !== "string" || call.id === "") {
      return { message: `Missing required parameter: '${where}.id'.`, param: `${where}.id` };
    }
    if (
      call.type !== "function" ||
      !isObject(call.function) ||
      typeof call.function.name !== "string"
    ) {
      return {
        message: `Missing required parameter: '${where}.function'.`,
        param: `${where}.function`,
      };
    }
    if (typeof call.function.arguments !== "string") {
      return {
        message: `Invalid type for '${where}.function.arguments': expected a string, but got an object instead.`,
        param: `${where}.function.arguments`,
      };
    }
  }
  return undefined;
}

/**
 * The first Chat Completions rule the request body breaks; undefined when it is acceptable.
 * Tool messages must answer the preceding assistant's `tool_calls`, all of them, before any
 * other message; in order, which is stricter than the live API but is what docket promises.
 *
 * @example
 * ```ts
 * findOpenAIRequestProblem({ model: "gpt-4o", messages: [] })?.message; // "[] is too short - 'messages'"
 * ```
 */
export function findOpenAIRequestProblem(body: unknown): OpenAIRequestProblem | undefined {
  if (!isObject(body)) {
    return { message: "We could not parse the JSON body of your request.", param: null };
  }
  const topLevel = checkTopLevel(body);
  if (topLevel) return topLevel;
  let pending: string[] = [];
  let askedAt = -1;
  for (const [index, message] of (body.messages as unknown[]).entries()) {
    if (!isObject(message) || typeof message.role !== "string" || !ROLES.includes(message.role)) {
      return {
        message: `Invalid value: '${isObject(message) ? String(message.role) : typeof message}'. Supported values are: 'system', 'assistant', 'user', 'tool', 'function', and 'developer'.`,
        param: `messages.[${index}].role`,
      };
    }
    if (message.role === "tool") {
      const id = message.tool_call_id;
      if (typeof id !== "string" || !pending.includes(id)) {
        return {
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `messages.[${index}].role`,
        };
      }
      if (pending[0] !== id) {
        return {
          message: `Tool messages answer the tool_calls of messages.[${askedAt}] out of order: got '${id}', expected '${pending[0]}' (fake-openai is stricter than the live API here).`,
          param: `messages.[${index}].tool_call_id`,
        };
      }
      if (typeof message.content !== "string" && !Array.isArray(message.content)) {
        return {
          message: `Invalid type for 'messages.[${index}].content'.`,
          param: `messages.[${index}].content`,
        };
      }
      pending = pending.slice(1);
      continue;
    }
    if (pending.length > 0) return unanswered(pending, askedAt);
    if (
      message.role === "assistant" &&
      Array.isArray(message.tool_calls) &&
      message.tool_calls.length > 0
    ) {
      const callProblem = checkToolCalls(message, index);
      if (callProblem) return callProblem;
      pending = message.tool_calls.map((call) => String((call as Json).id));
      askedAt = index;
    } else if (message.content === null || message.content === undefined) {
      return {
        message: `Invalid value for 'content': expected a string, got null.`,
        param: `messages.[${index}].content`,
      };
    }
  }
  return pending.length > 0 ? unanswered(pending, askedAt) : undefined;
}
