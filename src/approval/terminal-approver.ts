import type { Readable, Writable } from "node:stream";
import { colourEnabled } from "../shared/colour-enabled.js";
import { type TerminalStyle, terminalStyle } from "../shared/terminal-style.js";
import type { AlwaysAllowChannel, AlwaysAllowOffer } from "./always-allow-channel.js";
import type { ApprovalAnswer, ApprovalRequest, Approver } from "./approval.js";
import { renderDiff } from "./call-preview.js";
import { formatArguments, showControlCharacters } from "./format-arguments.js";

/** Where the terminal approver reads and writes, and who is answering. */
export interface TerminalApproverOptions {
  /** The approver's principal, recorded with every decision. */
  readonly as: string;
  readonly input?: Readable;
  readonly output?: Writable;
  /** Whether "approve for this session" may be offered for this request. */
  readonly canGrantSession?: (request: ApprovalRequest) => boolean;
  /** Default: colour when the output is a terminal (see `colourEnabled`). */
  readonly style?: TerminalStyle;
  /** What the call would change, e.g. a unified diff for a file write (see `previewCall`). */
  readonly preview?: (request: ApprovalRequest) => Promise<string | undefined>;
  /** "Always allow": a rule for the project's docket.yaml, when one can be offered. */
  readonly alwaysAllow?: AlwaysAllowChannel;
}

/** What the prompt shows besides the request itself. */
export interface PromptExtras {
  readonly style?: TerminalStyle;
  readonly diff?: string | undefined;
  readonly always?: AlwaysAllowOffer | undefined;
}

/**
 * Describe a request for a person: the tool, the exact arguments, the rule and the reason, and
 * (with `session`) exactly what "approve for this session" would cover.
 *
 * @example
 * ```ts
 * declare const request: import("./approval.js").ApprovalRequest;
 * process.stdout.write(describeRequest(request));
 * ```
 */
export function describeRequest(
  request: ApprovalRequest,
  session = false,
  { style = terminalStyle(false), diff, always }: PromptExtras = {},
): string {
  const lines = [
    "",
    `${style.yellow("Approval needed")}: ${style.bold(request.tool.name)}${request.tool.writes ? " (writes)" : ""}`,
    `  call ${request.callId}${request.sessionId ? ` in session ${request.sessionId}` : ""}, asked by ${request.principal}`,
    `  rule: ${request.verdict.rule ?? "(none)"}${request.verdict.layer ? ` [${request.verdict.layer}]` : ""}`,
  ];
  if (request.verdict.reason) lines.push(`  reason: ${request.verdict.reason}`);
  lines.push("  arguments:");
  for (const line of formatArguments(request.args).split("\n")) lines.push(`    ${line}`);
  const shell = request.verdict.shell;
  if (shell !== undefined) {
    const quote = (texts: readonly string[]) =>
      texts.map((text) => JSON.stringify(showControlCharacters(text))).join(", ");
    if (shell.uncovered.length > 0)
      lines.push(`  no rule covers: ${quote(shell.uncovered.map((c) => c.text))}`);
    if (shell.asked.length > 0)
      lines.push(`  a rule asks about: ${quote(shell.asked.map((c) => c.text))}`);
    for (const doubt of shell.uncertainties.slice(0, 3))
      lines.push(`  cannot vouch for: ${quote([doubt.text])} (${doubt.reason}: ${doubt.detail})`);
  }
  lines.push(`  sha256 of the arguments: ${request.argumentsHash}`);
  let text = `${lines.join("\n")}\n`;
  if (diff !== undefined) text += `  change:\n${renderDiff(diff, style, "    ")}`;
  const more: string[] = [];
  if (session && request.grant.status === "offered") {
    more.push(`  [s]ession would also approve: ${request.grant.covers}`);
  } else if (request.grant.status === "not_offered") {
    more.push(`  no session grant: ${request.grant.reason}`);
  }
  if (always?.status === "offered") {
    more.push(`  [r]ule would add to ${always.file}, allowing from now on: ${always.covers}`);
  } else if (always?.status === "not_offered") {
    more.push(`  no "always allow": ${always.reason}`);
  }
  return `${text}${more.map((line) => `${line}\n`).join("")}`;
}

/**
 * An approver that asks at the terminal: `a` approves once, `s` approves matching calls for the
 * rest of the session (when offered), `r` approves and adds an allow rule to docket.yaml (when
 * `alwaysAllow` offers one), `d` denies with a reason that goes back to the model. The prompt
 * shows the diff a file write would make and the sub-commands of a shell line no rule covered.
 * End of input or Ctrl-C denies: silence is never consent.
 *
 * @example
 * ```ts
 * const approvals = createTerminalApprover({ as: "alice" });
 * import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
 * declare const tools: import("../tool/tool.js").Tool[];
 * const checkpoint = createCheckpoint({ tools, approvals });
 * ```
 */
export function createTerminalApprover({
  as,
  input = process.stdin,
  output = process.stderr,
  canGrantSession = () => false,
  style = terminalStyle(colourEnabled(output as { isTTY?: boolean })),
  preview,
  alwaysAllow,
}: TerminalApproverOptions): Approver {
  // One question at a time: calls in a batch run in order, but be safe if two ask at once.
  let queue: Promise<unknown> = Promise.resolve();
  const ask = async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    // Offered only when the checkpoint can bind it: the line above the prompt says what it covers.
    const session = request.grant.status === "offered" && canGrantSession(request);
    // Neither extra may keep the question from being asked.
    const diff = await preview?.(request).catch(() => undefined);
    const always = await alwaysAllow?.(request).catch(
      (error: unknown): AlwaysAllowOffer => ({
        status: "not_offered",
        reason: `it could not be judged (${String((error as Error)?.message ?? error).split("\n")[0]})`,
      }),
    );
    const rule = always?.status === "offered" ? always : undefined;
    output.write(describeRequest(request, session, { style, diff, always }));
    // Lines are read from an iterator, which buffers them: an answer typed ahead is not lost.
    // Loaded on the first question: a run that asks nothing never loads node:readline.
    const { createInterface } = process.getBuiltinModule("node:readline");
    const rl = createInterface({ input, terminal: false });
    const lines = rl[Symbol.asyncIterator]();
    const question = async (prompt: string): Promise<string | undefined> => {
      output.write(prompt);
      const next = await lines.next();
      return next.done ? undefined : String(next.value);
    };
    const onAbort = () => rl.close();
    request.signal.addEventListener("abort", onAbort, { once: true });
    // Decided elsewhere while the preview was being made: no question at all.
    if (request.signal.aborted) onAbort();
    const silence: ApprovalAnswer = {
      decision: "deny",
      by: as,
      reason: "no answer at the terminal",
    };
    try {
      for (;;) {
        const line = await question(
          `  [a]pprove once${session ? ", approve for this [s]ession" : ""}${rule ? ", always allow with a [r]ule" : ""}, [d]eny? `,
        );
        if (line === undefined) return silence;
        const choice = line.trim().toLowerCase();
        if (choice === "a" || choice === "approve")
          return { decision: "approve", by: as, scope: "once" };
        if (session && (choice === "s" || choice === "session")) {
          return { decision: "approve", by: as, scope: "session" };
        }
        if (rule && (choice === "r" || choice === "rule" || choice === "always")) {
          try {
            const id = await rule.accept(as);
            output.write(`  ${style.green("added")} rule ${id} to ${rule.file}: ${rule.covers}\n`);
            return {
              decision: "approve",
              by: as,
              scope: "once",
              reason: `always allowed: rule ${id} added to ${rule.file}`,
            };
          } catch (error) {
            const why = String((error as Error)?.message ?? error).split("\n")[0];
            output.write(`  ${style.red("could not add the rule")}: ${why}\n`);
            continue;
          }
        }
        if (choice === "d" || choice === "deny") {
          const reason = (await question("  reason (sent to the model): "))?.trim();
          return { decision: "deny", by: as, reason: reason || "denied at the terminal" };
        }
        output.write(`  please answer a, d${session ? ", s" : ""}${rule ? ", r" : ""}.\n`);
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
