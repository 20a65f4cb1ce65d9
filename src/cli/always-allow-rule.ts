import { readFileSync, renameSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { isMap, isSeq, parseDocument } from "yaml";
import type { AlwaysAllowChannel, AlwaysAllowOffer } from "../approval/always-allow-channel.js";
import type { ApprovalRequest } from "../approval/approval.js";
import { DocketError } from "../errors/docket-error.js";
import { proposeAllowRule } from "../policy/allow-rule-proposal.js";
import { createPolicyEngine, type DocketPolicyEngine } from "../policy/policy-engine.js";
import type { PolicyLayer, PolicyRuleSpec } from "../policy/policy-rule.js";
import type { SelfProtection } from "../policy/self-protection-vote.js";

/** What the CLI knows that "always allow" needs. */
export interface AlwaysAllowOptions {
  /** The project's docket.yaml; without one nothing is offered. */
  readonly projectFile: string | undefined;
  readonly layers: readonly PolicyLayer[];
  readonly workspace: string;
  readonly protection: SelfProtection;
  /** The live engine: an accepted rule applies to the rest of this run too. */
  readonly policy: DocketPolicyEngine;
  readonly now?: () => Date;
}

/**
 * "Always allow" for the terminal approver. For each request it proposes the narrowest rule
 * (`proposeAllowRule`), then proves it: the same call is decided again by an engine built from
 * the same policy files plus that rule, with self-protection, and the rule is offered only if
 * that says allow, so it can never reach past a deny rule, docket's self-protection, another ask
 * rule or the sandbox. Accepting appends the rule, with an id and a reason, to docket.yaml's
 * `policy.rules` (comments and layout kept) and grants it in the running engine.
 *
 * @example
 * ```ts
 * import { createTerminalApprover } from "../approval/terminal-approver.js";
 * declare const layers: import("../policy/policy-rule.js").PolicyLayer[];
 * declare const protection: import("../policy/self-protection-vote.js").SelfProtection;
 * declare const policy: import("../policy/policy-engine.js").DocketPolicyEngine;
 * const projectFile = "docket.yaml";
 * const workspace = "/ws";
 * const alwaysAllow = createAlwaysAllow({ projectFile, layers, workspace, protection, policy });
 * createTerminalApprover({ as: "alice", alwaysAllow });
 * ```
 */
export function createAlwaysAllow(options: AlwaysAllowOptions): AlwaysAllowChannel {
  const { projectFile, layers, workspace, protection, policy, now = () => new Date() } = options;
  return async (request: ApprovalRequest): Promise<AlwaysAllowOffer> => {
    const no = (reason: string): AlwaysAllowOffer => ({ status: "not_offered", reason });
    if (projectFile === undefined) return no("there is no docket.yaml to write a rule to");
    if (request.verdict.decision !== "ask") return no("the policy did not ask about this call");
    if (request.tool.confinement?.status === "unconfined") {
      return no("commands run without a sandbox here, so each one is asked whatever the rules say");
    }
    const proposal = proposeAllowRule({
      tool: request.tool.name,
      policyArgs: request.tool.policyArgs,
      args: request.args,
      shell: request.verdict.shell,
    });
    if (proposal.status === "not_offered") return proposal;
    const id = freshId(policy, proposal.rule);
    const { command } = proposal.rule;
    // One pattern reads best as a plain string in the file.
    const rule: PolicyRuleSpec = {
      id,
      ...proposal.rule,
      ...(Array.isArray(command) && command.length === 1 ? { command: command[0] } : {}),
    };
    const verdict = await judgeWith(layers, rule, { workspace, protection }, request);
    if (verdict.decision !== "allow") {
      return no(
        `even with the rule, the policy says ${verdict.decision}${verdict.rule ? ` (rule ${verdict.rule})` : ""}`,
      );
    }
    const file = path.relative(process.cwd(), projectFile) || projectFile;
    return {
      status: "offered",
      covers: proposal.covers,
      file,
      accept: async (by) => {
        const reason = `always allowed by ${by} at the approval prompt on ${now().toISOString().slice(0, 10)}`;
        const written: PolicyRuleSpec = { ...rule, reason };
        appendPolicyRule(projectFile, written);
        try {
          policy.grant(written);
        } catch {
          // Already written; this run keeps asking, the next one loads it.
        }
        return id;
      },
    };
  };
}

async function judgeWith(
  layers: readonly PolicyLayer[],
  rule: PolicyRuleSpec,
  { workspace, protection }: { workspace: string; protection: SelfProtection },
  request: ApprovalRequest,
) {
  const hasProject = layers.some((layer) => layer.name === "project");
  const withRule: PolicyLayer[] = layers.map((layer) =>
    layer.name === "project" ? { ...layer, rules: [...(layer.rules ?? []), rule] } : layer,
  );
  if (!hasProject) withRule.push({ name: "project", rules: [rule] });
  const engine = await createPolicyEngine({ layers: withRule, workspace, protection });
  return engine.decide({
    tool: request.tool,
    args: request.args,
    rawArguments: request.canonicalArguments,
    callId: request.callId,
    principal: request.principal,
    sessionId: request.sessionId,
  });
}

function freshId(policy: DocketPolicyEngine, rule: PolicyRuleSpec): string {
  const subject = [rule.command, rule.path, rule.host].flat().find((x) => typeof x === "string");
  const slug = `${rule.tool}-${subject ?? ""}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
  const taken = new Set(policy.rules().map((summary) => summary.id));
  let id = `always-${slug}`;
  for (let n = 2; taken.has(id); n += 1) id = `always-${slug}-${n}`;
  return id;
}

/**
 * Append a rule to `policy.rules` of a docket.yaml, keeping its comments and layout (the `yaml`
 * Document API), creating `policy:` or `rules:` when missing. Written to a temporary file beside
 * it and renamed over it, so a crash leaves the old file or the new one, never half of one.
 * Throws `DocketError("config_invalid")` when the file does not parse or has no room for rules.
 *
 * @example
 * ```ts
 * appendPolicyRule("docket.yaml", { id: "always-git-status", decision: "allow", tool: "run_command", command: "git status *" });
 * ```
 */
export function appendPolicyRule(file: string, rule: PolicyRuleSpec): void {
  const text = readFileSync(file, "utf8");
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new DocketError("config_invalid", `${file} does not parse: ${doc.errors[0]?.message}`);
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    throw new DocketError("config_invalid", `${file} is not a mapping, so no rule can be added`);
  }
  const section = doc.get("policy", true);
  if (section === undefined || section === null) doc.set("policy", doc.createNode({ rules: [] }));
  else if (!isMap(section))
    throw new DocketError("config_invalid", `${file}: policy is not a mapping`);
  const rules = doc.getIn(["policy", "rules"], true);
  if (rules === undefined || rules === null) doc.setIn(["policy", "rules"], doc.createNode([]));
  else if (!isSeq(rules))
    throw new DocketError("config_invalid", `${file}: policy.rules is not a list`);
  const seq = doc.getIn(["policy", "rules"], true);
  if (!isSeq(seq)) throw new DocketError("config_invalid", `${file}: policy.rules is not a list`);
  seq.add(doc.createNode(rule));
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, doc.toString({ flowCollectionPadding: false }), {
    mode: 0o644,
    flag: "wx",
  });
  renameSync(temporary, file);
}
