/** How a connection through the sandbox's proxy was asked for. */
export type NetworkConnectionKind = "connect" | "http";

/**
 * One connection a sandboxed process asked docket's proxy for, as the audit trail keeps it: where
 * to, what the rules said, who approved an ask, what became of it, and the bytes and time it
 * took. `out` is what the sandbox sent, `in` what came back.
 *
 * @example
 * ```ts
 * const record: NetworkConnection = { kind: "connect", host: "registry.npmjs.org", port: 443,
 *   decision: "allow", rule: "project:allow:registry.npmjs.org", status: "closed",
 *   address: "104.16.1.34", bytesOut: 812, bytesIn: 40_213, durationMs: 231 };
 * ```
 */
export interface NetworkConnection {
  readonly kind: NetworkConnectionKind;
  readonly host: string;
  readonly port: number;
  /** What the rules said. */
  readonly decision: "allow" | "ask" | "deny";
  /** The rule that decided (`LAYER:DECISION:PATTERN`), or `no_rule`. */
  readonly rule: string;
  /** For an ask: whether a person let it through (`approved`), refused it, or none answered. */
  readonly approval?: "approved" | "denied" | "timed_out" | "no_approver";
  /** For an ask answered through the approval queue: the request a person decided (`apr_…`). */
  readonly approvalId?: string;
  /** For an ask: who answered it, as the approver reported. */
  readonly approvedBy?: string;
  /**
   * `closed`: it went through and has ended; `refused`: docket would not open it (rules, the
   * approver, the address check); `failed`: the destination could not be reached.
   */
  readonly status: "closed" | "refused" | "failed";
  /** Why it was refused or failed. */
  readonly reason?: string;
  /** The address docket connected to (it resolves names itself). */
  readonly address?: string;
  readonly bytesOut: number;
  readonly bytesIn: number;
  readonly durationMs: number;
}

/** The tool call whose sandboxed process opened a connection: whose ask it is. */
export interface NetworkCall {
  readonly callId: string;
  readonly sessionId: string | undefined;
  /** The agent that asked for the call; it may never approve its own connection. */
  readonly principal: string;
}

/** What an approver is asked about one connection. */
export interface NetworkAskRequest {
  readonly host: string;
  readonly port: number;
  readonly rule: string;
  /** The call that opened it, when the launch knows it (a `run_command` through the checkpoint). */
  readonly call?: NetworkCall;
  /** How long the proxy holds the connection for an answer (its `ask_timeout`). */
  readonly timeoutMs?: number;
}

/** An approver's answer with its provenance: which approval request, decided by whom. */
export interface NetworkAskAnswer {
  readonly approved: boolean;
  readonly approvalId?: string;
  readonly by?: string;
  /** Why, for a refusal: shown to the command and kept in the trail. */
  readonly reason?: string;
  /** A refusal because nobody answered before the request expired: recorded as `timed_out`. */
  readonly expired?: boolean;
}

/**
 * Answers an `ask` for one connection: true (or `approved: true`) lets that one connection
 * through. The signal aborts when the ask times out or the sandboxed process gives up; a late
 * answer is ignored.
 */
export type NetworkApprover = (
  request: NetworkAskRequest,
  signal: AbortSignal,
) => Promise<boolean | NetworkAskAnswer>;
