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

/** What an approver is asked about one connection. */
export interface NetworkAskRequest {
  readonly host: string;
  readonly port: number;
  readonly rule: string;
}

/**
 * Answers an `ask` for one connection: true lets that one connection through. The signal aborts
 * when the ask times out or the sandboxed process gives up; a late answer is ignored.
 */
export type NetworkApprover = (request: NetworkAskRequest, signal: AbortSignal) => Promise<boolean>;
