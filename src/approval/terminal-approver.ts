import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { ApprovalAnswer, ApprovalRequest, Approver } from "./approval.js";
import { formatArguments } from "./format-arguments.js";

/** Where the terminal approver reads and writes, and who is answering. */
export interface TerminalApproverOptions {
  /** The approver's principal, recorded with every decision. */
  readonly as: string;
  readonly input?: Readable;
  readonly output?: Writable;
  /** Whether "approve for this session" may be offered for this request. */
  readonly canGrantSession?: (request: ApprovalRequest) => boolean;
}

/**
 * Describe a request for a person: the tool, the exact arguments, the rule and the reason, and
 * (with `session`) exactly what "approve for this session" would cover.
 *
 * @example
 * ```ts
 * process.stdout.write(describeRequest(request));
 * ```
 */
export function describeRequest(request: ApprovalRequest, session = false): string {
  const lines = [
    "",
    `Approval needed: ${request.tool.name}${request.tool.writes ? " (writes)" : ""}`,
    `  call ${request.callId}${request.sessionId ? ` in session ${request.sessionId}` : ""}, asked by ${request.principal}`,
    `  rule: ${request.verdict.rule ?? "(none)"}${request.verdict.layer ? ` [${request.verdict.layer}]` : ""}`,
  ];
  if (request.verdict.reason) lines.push(`  reason: ${request.verdict.reason}`);
  lines.push("  arguments:");
  for (const line of formatArguments(request.args).split("\n")) lines.push(`    ${line}`);
  lines.push(`  sha256 of the arguments: ${request.argumentsHash}`);
  if (session && request.grant.status === "offered") {
    lines.push(`  [s]ession would also approve: ${request.grant.covers}`);
  } else if (request.grant.status === "not_offered") {
    lines.push(`  no session grant: ${request.grant.reason}`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * An approver that asks at the terminal: `a` approves once, `s` approves matching calls for the
 * rest of the session (when offered), `d` denies with a reason that goes back to the model.
 * End of input or Ctrl-C denies: silence is never consent.
 *
 * @example
 * ```ts
 * const approvals = createTerminalApprover({ as: "alice" });
 * const checkpoint = createCheckpoint({ tools, approvals });
 * ```
 */
export function createTerminalApprover({
  as,
  input = process.stdin,
  output = process.stderr,
  canGrantSession = () => false,
}: TerminalApproverOptions): Approver {
  // One question at a time: calls in a batch run in order, but be safe if two ask at once.
  let queue: Promise<unknown> = Promise.resolve();
  const ask = async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    // Offered only when the checkpoint can bind it: the line above the prompt says what it covers.
    const session = request.grant.status === "offered" && canGrantSession(request);
    output.write(describeRequest(request, session));
    // Lines are read from an iterator, which buffers them: an answer typed ahead is not lost.
    const rl = createInterface({ input, terminal: false });
    const lines = rl[Symbol.asyncIterator]();
    const question = async (prompt: string): Promise<string | undefined> => {
      output.write(prompt);
      const next = await lines.next();
      return next.done ? undefined : String(next.value);
    };
    const onAbort = () => rl.close();
    request.signal.addEventListener("abort", onAbort, { once: true });
    const silence: ApprovalAnswer = {
      decision: "deny",
      by: as,
      reason: "no answer at the terminal",
    };
    try {
      for (;;) {
        const line = await question(
          `  [a]pprove once${session ? ", approve for this [s]ession" : ""}, [d]eny? `,
        );
        if (line === undefined) return silence;
        const choice = line.trim().toLowerCase();
        if (choice === "a" || choice === "approve")
          return { decision: "approve", by: as, scope: "once" };
        if (session && (choice === "s" || choice === "session")) {
          return { decision: "approve", by: as, scope: "session" };
        }
        if (choice === "d" || choice === "deny") {
          const reason = (await question("  reason (sent to the model): "))?.trim();
          return { decision: "deny", by: as, reason: reason || "denied at the terminal" };
        }
        output.write(`  please answer a, d${session ? " or s" : ""}.\n`);
      }
    } catch {
      return silence;
    } finally {
      request.signal.removeEventListener("abort", onAbort);
      rl.close();
    }
  };
  return (request) => {
    const answer = queue.then(() => ask(request));
    queue = answer.catch(() => undefined);
    return answer;
  };
}
