import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import type { ApproverDirectory } from "../../approval/approver-directory.js";
import { decideApproval } from "../../approval/decide-approval.js";
import { formatArguments } from "../../approval/format-arguments.js";
import { parseJson } from "../../shared/parse-json.js";
import type { Approval, ApprovalStatus } from "../../store/approval-record.js";
import type { Store } from "../../store/store.js";
import { loadCliConfig } from "../load-cli-config.js";
import { readTokenFile } from "../token-file.js";
import { approverDeclaredWhere } from "./approver-declared-where.js";
import { CONFIG_FLAG_HELP, STORE_FLAG_HELP } from "./command-flags.js";
import { parseApprovalStatus } from "./list-filters.js";
import { openSignedStore } from "./open-signed-store.js";
import { formatTime, textTable } from "./text-table.js";

interface CommonOptions {
  readonly config?: string;
  readonly store?: string;
}

async function withStore<T>(
  options: CommonOptions,
  fn: (ctx: ReturnType<typeof loadCliConfig>, store: Store) => Promise<T>,
) {
  const ctx = loadCliConfig(options);
  // An approval lives in a store a run made: listing, showing or deciding never creates one.
  // Signed like a run's store: a decision made here is not left as an unsigned tail.
  const signed = await openSignedStore(ctx.storeUrl, ctx.runtime.audit, {
    recover: false,
    mustExist: true,
  });
  try {
    return await fn(ctx, signed.store);
  } finally {
    await signed.close();
  }
}

function describe(approval: Approval): string {
  let args: unknown = approval.canonicalArgs;
  try {
    args = parseJson(approval.canonicalArgs);
  } catch {}
  const lines = [
    `approval  ${approval.id}  (${approval.status})`,
    `tool      ${approval.tool}`,
    `call      ${approval.callId}${approval.sessionId ? ` in session ${approval.sessionId}` : ""}`,
    `asked by  ${approval.requestedBy} at ${formatTime(approval.createdAt)}${approval.expiresAt ? `, expires ${formatTime(approval.expiresAt)}` : ""}`,
    `rule      ${approval.rule ?? "(none)"}${approval.reason ? `: ${approval.reason}` : ""}`,
    `who       ${approval.approvers?.join(", ") ?? "any configured approver"}`,
    `sha256    ${approval.argsHash}`,
    `session   ${grantLine(approval)}`,
    "arguments",
    ...formatArguments(args)
      .split("\n")
      .map((line) => `  ${line}`),
  ];
  if (approval.decidedBy) {
    lines.push(
      `decided   ${approval.status} by ${approval.decidedBy}${approval.locallyAsserted ? " (locally asserted)" : ""} at ${formatTime(approval.decidedAt ?? 0)}${approval.decisionReason ? `: ${approval.decisionReason}` : ""}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

// What `approve --session` would add, so the approver reads it before choosing.
function grantLine(approval: Approval): string {
  if (approval.grantKey && approval.grantText)
    return `--session would also approve: ${approval.grantText}`;
  return `no session grant (${approval.grantText?.replace(/^not offered: /, "") ?? "requested before session grants were bound to what they cover"})`;
}

async function tokenFor(
  name: string,
  hasToken: boolean,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  if (env.DOCKET_TOKEN) return env.DOCKET_TOKEN;
  if (env.DOCKET_TOKEN_FILE) return readTokenFile(env.DOCKET_TOKEN_FILE);
  if (!hasToken || !process.stdin.isTTY) return undefined;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(`token for ${name}: `)).trim() || undefined;
  } finally {
    rl.close();
  }
}

/**
 * Add `docket approvals list | show | approve | deny`: decide pending requests from any terminal,
 * as a configured approver (`--as NAME`; with a token from DOCKET_TOKEN or a prompt when the
 * approver has one).
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerApprovalsCommand(program);
 * await program.parseAsync(["approvals", "approve", "apr_1", "--as", "alice"], { from: "user" });
 * ```
 */
export function registerApprovalsCommand(program: Command): void {
  const approvals = program
    .command("approvals")
    .description("List, inspect and decide approval requests.");
  const common = (command: Command) =>
    command.option("--config <file>", CONFIG_FLAG_HELP).option("--store <url>", STORE_FLAG_HELP);

  common(
    approvals
      .command("list")
      .description("Pending requests (or --status STATUS, --all), newest first, a page at a time."),
  )
    .option(
      "--status <status>",
      "pending, approved, denied or expired",
      parseApprovalStatus,
      "pending" as ApprovalStatus,
    )
    .option("--all", "every request")
    .option("--limit <n>", "requests per page, 1 to 1000", "100")
    .option("--cursor <cursor>", "the next page: the cursor the previous page printed")
    .option("--json", "one JSON object per line")
    .action(async (options: ListOptions) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
        process.stderr.write("docket: --limit is an integer from 1 to 1000\n");
        process.exitCode = 2;
        return;
      }
      const page = await withStore(options, async (_ctx, store) => {
        await store.expireApprovals();
        return store.pageApprovals({
          ...(options.all ? {} : { status: options.status }),
          limit,
          ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
        });
      });
      const list = page.approvals;
      // Where the page stands goes to stderr, so that stdout stays the list (or JSON lines).
      if (page.next !== undefined) {
        process.stderr.write(
          `${list.length} of ${page.total} shown, newest first; more: docket approvals list --cursor ${page.next}${options.all ? " --all" : options.status !== "pending" ? ` --status ${options.status}` : ""}\n`,
        );
      }
      if (options.json) {
        for (const approval of list) process.stdout.write(`${JSON.stringify(approval)}\n`);
      } else if (list.length === 0) {
        process.stdout.write(
          options.all ? "No approval requests.\n" : `No ${options.status} approval requests.\n`,
        );
      } else {
        process.stdout.write(
          textTable(
            ["ID", "STATUS", "TOOL", "CALL", "ASKED", "WHO MAY DECIDE", "REASON"],
            list.map((a) => [
              a.id,
              a.status,
              a.tool,
              a.callId,
              formatTime(a.createdAt),
              a.approvers?.join(",") ?? "any",
              a.reason ?? "",
            ]),
          ),
        );
      }
    });

  common(
    approvals
      .command("show")
      .description("One request: the exact arguments, the rule, the decision."),
  )
    .argument("<id>", "the approval id")
    .option("--json", "one JSON object")
    .action(async (id: string, options: CommonOptions & { json?: boolean }) => {
      const approval = await withStore(options, (_ctx, store) => store.getApproval(id));
      if (!approval) {
        process.stderr.write(`docket: there is no approval request ${id}\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(options.json ? `${JSON.stringify(approval)}\n` : describe(approval));
    });

  for (const decision of ["approve", "deny"] as const) {
    const command = common(
      approvals
        .command(decision)
        .description(`${decision === "approve" ? "Approve" : "Deny"} a request.`),
    )
      .argument("<id>", "the approval id")
      .option("--as <name>", "who is deciding: a configured approver (the only one, if one)")
      .option(
        "--reason <text>",
        decision === "deny" ? "why (required: it goes back to the model)" : "why",
      );
    if (decision === "approve")
      command.option(
        "--session",
        "also approve the later calls of this session the request's grant covers (see `approvals show`)",
      );
    command.action(
      async (
        id: string,
        options: CommonOptions & { as?: string; reason?: string; session?: boolean },
      ) => {
        let unknownApprover: string | undefined;
        const outcome = await withStore(options, async (ctx, store) => {
          const as = options.as ?? onlyApprover(ctx.directory);
          if (!ctx.directory.entries.has(as)) {
            unknownApprover = approverDeclaredWhere(as, ctx.directory, ctx);
          }
          const token = await tokenFor(
            as,
            Boolean(ctx.directory.entries.get(as)?.tokenSha256),
            process.env,
          );
          return decideApproval(store, ctx.directory, {
            approvalId: id,
            decision,
            ...(options.reason ? { reason: options.reason } : {}),
            ...(options.session ? { scope: "session" as const } : {}),
            claim: { name: as, ...(token ? { token } : {}) },
            // Defence in depth: `--as NAME` alone is a person at a terminal, never a pipe.
            terminal: Boolean(process.stdin.isTTY && process.stdout.isTTY),
          });
        });
        if (outcome.status === "decided") {
          const grant =
            outcome.approval.scope === "session" && outcome.approval.grantText
              ? `; for this session it also approves ${outcome.approval.grantText}`
              : "";
          process.stdout.write(
            `${outcome.approval.id} ${outcome.approval.status} by ${outcome.approval.decidedBy}${grant}\n`,
          );
          return;
        }
        process.stderr.write(`docket: ${outcome.message}\n`);
        if (unknownApprover !== undefined) process.stderr.write(`${unknownApprover}\n`);
        process.exitCode =
          outcome.status === "conflict" ? 3 : outcome.status === "not_found" ? 1 : 2;
      },
    );
  }
}

/** Who decides when `--as` is left out: the configured approver, when there is exactly one. */
function onlyApprover(directory: ApproverDirectory): string {
  const names = [...directory.entries.keys()];
  if (names.length === 1 && names[0] !== undefined) return names[0];
  throw new Error(
    names.length === 0
      ? "No approver is configured (approvers: in docket.yaml), so nobody can decide."
      : `Give --as NAME: the approvers are ${names.join(", ")}.`,
  );
}

type ListOptions = CommonOptions & {
  status: ApprovalStatus;
  all?: boolean;
  json?: boolean;
  limit: string;
  cursor?: string;
};
