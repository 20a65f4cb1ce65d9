import type { TranscriptMessage, TranscriptToolCall } from "./transcript-message.js";

/** What a provider accepts as a call id (Anthropic's pattern, the strictest of them). */
const SAFE_ID = /^[a-zA-Z0-9_-]+$/;
const MAX_MODEL_PART = 40;

/**
 * The ids already given to calls in a transcript: the set a new reply's ids must avoid.
 *
 * @example
 * ```ts
 * usedCallIds([{ role: "assistant", text: "", toolCalls: [{ id: "call_0", name: "a", arguments: "{}" }] }]);
 * // Set { "call_0" }
 * ```
 */
export function usedCallIds(messages: readonly TranscriptMessage[]): Set<string> {
  const used = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") for (const call of message.toolCalls) used.add(call.id);
  }
  return used;
}

/**
 * Give a reply's calls ids no earlier call of the session (and no other call of the reply) has.
 * A model's id names a call within its reply only: local servers and some models send `call_0`
 * every turn. docket's durable identity of a call, what "runs at most once, ever" is keyed on,
 * is this id, so a repeated one is replaced by docket's own, built from where the call sits
 * (the turn and the position): the same transcript always gives the same ids, so a resumed
 * session re-dispatches exactly the ids the first attempt did. The model's own id is kept as
 * `modelId`. An id that is already unique is kept as it is. `used` is extended with the ids
 * given.
 *
 * @example
 * ```ts
 * const used = new Set(["call_0"]);
 * distinctCalls([{ id: "call_0", name: "get_order", arguments: "{}" }], used, 2);
 * // [{ id: "call_0_t2_0", name: "get_order", arguments: "{}", modelId: "call_0" }]
 * ```
 */
export function distinctCalls(
  calls: readonly TranscriptToolCall[],
  used: Set<string>,
  turn: number,
): TranscriptToolCall[] {
  return calls.map((call, position) => {
    const id = String(call.id);
    if (id !== "" && !used.has(id)) {
      used.add(id);
      return call;
    }
    const model = id.slice(0, MAX_MODEL_PART);
    const stem = `${SAFE_ID.test(model) ? model : "call"}_t${turn}_${position}`;
    let fresh = stem;
    for (let n = 2; used.has(fresh); n += 1) fresh = `${stem}_${n}`;
    used.add(fresh);
    return { ...call, id: fresh, modelId: id };
  });
}

/**
 * A transcript as it may be sent: a session saved before docket gave repeated ids its own (or
 * written by hand) can carry one id on several calls, which Anthropic rejects and which ties a
 * result to the wrong call. Such calls, and the results that answer them in the next message,
 * get distinct ids for the request; the stored transcript is left as it is. Returns the same
 * array when every id is already distinct.
 *
 * @example
 * ```ts
 * import { toPrompt } from "./to-prompt.js";
 * declare const messages: readonly import("./transcript-message.js").TranscriptMessage[];
 * const prompt = toPrompt(distinctTranscript(messages));
 * ```
 */
export function distinctTranscript(
  messages: readonly TranscriptMessage[],
): readonly TranscriptMessage[] {
  const seen = new Set<string>();
  let clash = false;
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.toolCalls) {
      if (seen.has(call.id)) clash = true;
      seen.add(call.id);
    }
  }
  if (!clash) return messages;
  const used = new Set<string>();
  const out: TranscriptMessage[] = [];
  let turn = 0;
  let renamed: readonly TranscriptToolCall[] | undefined;
  for (const message of messages) {
    if (message.role === "assistant") {
      turn += 1;
      const calls = distinctCalls(message.toolCalls, used, turn);
      renamed = calls;
      out.push(
        calls.every((c, i) => c === message.toolCalls[i])
          ? message
          : { ...message, toolCalls: calls },
      );
      continue;
    }
    if (message.role === "tool" && renamed) {
      // Results answer the calls before them in order: the k-th result takes the k-th call's id.
      const calls = renamed;
      const results = message.results.map((result, k) => {
        const call = calls[k];
        return call && call.id !== result.callId ? { ...result, callId: call.id } : result;
      });
      out.push(
        results.every((r, k) => r === message.results[k]) ? message : { ...message, results },
      );
      renamed = undefined;
      continue;
    }
    out.push(message);
  }
  return out;
}
