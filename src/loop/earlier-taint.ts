import type { TaintSource } from "../checkpoint/taint-ledger.js";
import type { TranscriptMessage } from "./transcript-message.js";

const ENVELOPE = /^(?:\[[^\n]*\]\n)?<data from="([^"\n]*)">\n/;

/**
 * The open-world results a session's transcript already holds: each reached the model in the
 * data envelope, and is still in its context, so a new run of the session starts tainted by them
 * (a checkpoint lives for one run; the transcript outlives it, and the process).
 *
 * @example
 * ```ts
 * declare const transcript: import("./session-transcript.js").SessionTranscript;
 * earlierTaint(await transcript.load()); // [{ tool: "fetch_url", source: "fetch_url https://…", callId: "c4" }]
 * ```
 */
export function earlierTaint(messages: readonly TranscriptMessage[]): TaintSource[] {
  const sources: TaintSource[] = [];
  for (const message of messages) {
    if (message.role !== "tool") continue;
    for (const result of message.results) {
      const match = result.status === "ok" ? ENVELOPE.exec(result.text) : null;
      if (match)
        sources.push({ tool: result.name, source: match[1] ?? result.name, callId: result.callId });
    }
  }
  return sources;
}
