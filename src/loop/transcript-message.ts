import type { ToolResultStatus } from "../checkpoint/tool-result.js";

/** A tool call as the model asked for it, with its argument text exactly as produced. */
export interface TranscriptToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
  /**
   * The id the model gave, when docket gave the call its own: the model's was already used in
   * the session (see `distinctCalls`). The call is known, sent and audited by `id`.
   */
  readonly modelId?: string;
}

/** A tool result as the model will see it: shaped, capped text tied to the call's id. */
export interface TranscriptToolResult {
  readonly callId: string;
  readonly name: string;
  readonly status: ToolResultStatus;
  readonly reason?: string;
  /** The rendered text (capped), or an elision marker once the context budget needs the room. */
  readonly text: string;
  /** Refused and failed results are errors to the provider. */
  readonly isError: boolean;
}

/**
 * One message of a session's transcript, in docket's own provider-neutral form. It is turned
 * into each provider's wire format on every request, so a resumed session sends exactly what
 * was saved.
 */
export type TranscriptMessage =
  | { readonly role: "system"; readonly text: string }
  | { readonly role: "user"; readonly text: string }
  | {
      readonly role: "assistant";
      readonly text: string;
      readonly toolCalls: readonly TranscriptToolCall[];
    }
  | { readonly role: "tool"; readonly results: readonly TranscriptToolResult[] };
