import type { NetworkApprover, NetworkConnection } from "./network-connection.js";
import type { NetworkDecider } from "./network-rules.js";
import { type DestinationOptions, resolveDestination } from "./resolve-destination.js";

/** What admitting a connection needs: the rules, the approver, the name resolution. */
export interface AdmitOptions {
  readonly decide: NetworkDecider;
  readonly approve?: NetworkApprover | undefined;
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
    const approval = await askApprover(options, { host, port, rule: verdict.rule }, signal);
    connection = { ...base, approval };
    if (approval !== "approved")
      return { open: false, connection, reason: `ask ${approval.replace("_", " ")}` };
  }
  const destination = await resolveDestination(host, options.destination);
  if (destination.status === "blocked")
    return { open: false, connection, reason: destination.reason };
  return { open: true, connection: { ...connection, address: destination.address } };
}

async function askApprover(
  options: AdmitOptions,
  request: { host: string; port: number; rule: string },
  gone: AbortSignal,
): Promise<NonNullable<NetworkConnection["approval"]>> {
  if (options.approve === undefined) return "no_approver";
  const signal = AbortSignal.any([gone, AbortSignal.timeout(options.askTimeoutMs ?? 60_000)]);
  const timedOut = new Promise<"timed_out">((resolve) =>
    signal.addEventListener("abort", () => resolve("timed_out"), { once: true }),
  );
  const answer = options.approve(request, signal).then(
    (yes): "approved" | "denied" => (yes ? "approved" : "denied"),
    (): "denied" => "denied",
  );
  const result = await Promise.race([answer, timedOut]);
  return signal.aborted ? "timed_out" : result;
}
