import type {
  NetworkApprover,
  NetworkAskRequest,
  NetworkCall,
  NetworkConnection,
} from "./network-connection.js";
import type { NetworkDecider } from "./network-rules.js";
import { type DestinationOptions, resolveDestination } from "./resolve-destination.js";

/** What admitting a connection needs: the rules, the approver, the name resolution. */
export interface AdmitOptions {
  readonly decide: NetworkDecider;
  readonly approve?: NetworkApprover | undefined;
  /** The call the sandboxed process belongs to: passed to the approver with each ask. */
  readonly call?: NetworkCall | undefined;
  /** How long an ask waits for an answer (default 60 s). */
  readonly askTimeoutMs?: number;
  readonly destination?: DestinationOptions;
}

/** A connection's record before it has run: what was asked for and what was decided. */
export type PendingConnection = Omit<
  NetworkConnection,
  "status" | "bytesOut" | "bytesIn" | "durationMs"
>;

/** Whether a connection may be opened (to `connection.address`), or why not. */
export type Admission =
  | { readonly open: true; readonly connection: PendingConnection }
  | { readonly open: false; readonly connection: PendingConnection; readonly reason: string };

/**
 * Decide one connection: the rules (deny, or an ask held for the approver until it answers or
 * `askTimeoutMs` passes, or `signal` says the client left), then the name resolved and every
 * address checked (`resolveDestination`). Only an open admission carries an address to dial.
 *
 * @example
 * ```ts
 * import { connect } from "node:net";
 * import { compileNetworkRules } from "./network-rules.js";
 * const decide = compileNetworkRules([{ name: "project", allow: ["registry.npmjs.org"] }]);
 * const signal = AbortSignal.timeout(60_000); // aborts when the client leaves
 * const admission = await admitConnection("connect", "registry.npmjs.org", 443, signal, { decide });
 * if (admission.open) connect({ host: admission.connection.address, port: 443 });
 * ```
 */
export async function admitConnection(
  kind: "connect" | "http",
  host: string,
  port: number,
  signal: AbortSignal,
  options: AdmitOptions,
): Promise<Admission> {
  const verdict = options.decide(host, port);
  const base: PendingConnection = {
    kind,
    host,
    port,
    decision: verdict.decision,
    rule: verdict.rule,
  };
  if (verdict.decision === "deny") {
    const why =
      verdict.rule === "no_rule" ? "no network rule allows it" : `denied by ${verdict.rule}`;
    return { open: false, connection: base, reason: why };
  }
  let connection = base;
  if (verdict.decision === "ask") {
    const asked = {
      host,
      port,
      rule: verdict.rule,
      timeoutMs: options.askTimeoutMs ?? 60_000,
      ...(options.call ? { call: options.call } : {}),
    };
    const answer = await askApprover(options, asked, signal);
    connection = {
      ...base,
      approval: answer.approval,
      ...(answer.approvalId ? { approvalId: answer.approvalId } : {}),
      ...(answer.by ? { approvedBy: answer.by } : {}),
    };
    if (answer.approval !== "approved") {
      const why = `ask ${answer.approval.replace("_", " ")}`;
      return { open: false, connection, reason: answer.reason ? `${why}: ${answer.reason}` : why };
    }
  }
  const destination = await resolveDestination(host, options.destination);
  if (destination.status === "blocked")
    return { open: false, connection, reason: destination.reason };
  return { open: true, connection: { ...connection, address: destination.address } };
}

interface AskOutcome {
  readonly approval: NonNullable<NetworkConnection["approval"]>;
  readonly approvalId?: string | undefined;
  readonly by?: string | undefined;
  readonly reason?: string | undefined;
}

async function askApprover(
  options: AdmitOptions,
  request: NetworkAskRequest,
  gone: AbortSignal,
): Promise<AskOutcome> {
  if (options.approve === undefined) return { approval: "no_approver" };
  const signal = AbortSignal.any([gone, AbortSignal.timeout(options.askTimeoutMs ?? 60_000)]);
  const timedOut = new Promise<AskOutcome>((resolve) =>
    signal.addEventListener("abort", () => resolve({ approval: "timed_out" }), { once: true }),
  );
  const answer = options.approve(request, signal).then(
    (said): AskOutcome => {
      const full = typeof said === "boolean" ? { approved: said } : said;
      return {
        approval: full.approved ? "approved" : full.expired === true ? "timed_out" : "denied",
        approvalId: full.approvalId,
        by: full.by,
        reason: full.reason,
      };
    },
    (): AskOutcome => ({ approval: "denied" }),
  );
  const result = await Promise.race([answer, timedOut]);
  return signal.aborted ? { ...result, approval: "timed_out" } : result;
}
