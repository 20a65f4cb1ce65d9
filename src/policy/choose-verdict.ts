import type { EffectiveDefaults } from "./compile-layers.js";
import { strictness } from "./decision-order.js";
import type { Decision, PolicyVerdict } from "./policy.js";
import type { PolicyVote } from "./policy-vote.js";

/**
 * Turn the votes on a call into its verdict: the strictest decision wins (deny > ask > allow);
 * among votes for it, the strongest layer and then the earliest rule decides and gives the
 * reason, approvers and matched text. With no votes the tool's default applies
 * (`default:reads` or `default:writes`, layer `default`). The explanation names the deciding
 * rule, what it matched, the sub-command for shell, the other votes and any failed condition.
 *
 * @example
 * ```ts
 * declare const defaults: import("./compile-layers.js").EffectiveDefaults;
 * chooseVerdict({ name: "read_file", writes: false }, [], defaults, []).rule; // "default:reads"
 * ```
 */
export function chooseVerdict(
  tool: { readonly name: string; readonly writes: boolean; readonly writesPerCall?: true },
  votes: readonly PolicyVote[],
  defaults: EffectiveDefaults,
  notes: readonly string[],
): PolicyVerdict {
  let deciding: PolicyVote | undefined;
  for (const vote of votes) {
    if (
      deciding === undefined ||
      strictness(vote.decision) > strictness(deciding.decision) ||
      (vote.decision === deciding.decision && vote.order < deciding.order)
    ) {
      deciding = vote;
    }
  }
  if (deciding === undefined) return defaultVerdict(tool, defaults, notes);

  const reason = deciding.reason ?? generatedReason(tool.name, deciding);
  const matched = deciding.matched.join("; ");
  const lines = [
    `${deciding.decision} by rule ${deciding.rule} (layer ${deciding.layer}): ${reason}`,
    `matched: ${matched}`,
  ];
  if (deciding.command !== undefined) lines.push(`sub-command: ${deciding.command}`);
  if (deciding.detail !== undefined) lines.push(`shell: ${deciding.detail}`);
  const others = votes.filter((vote) => vote !== deciding);
  if (others.length > 0) {
    lines.push(
      `other votes: ${others.map((vote) => `${vote.decision} ${vote.rule}`).join(", ")} (strictest wins)`,
    );
  }
  for (const note of notes) lines.push(`note: ${note}`);
  return {
    decision: deciding.decision,
    reason,
    rule: deciding.rule,
    layer: deciding.layer,
    explanation: lines.join("\n"),
    matched,
    ...(deciding.decision === "ask" && deciding.approvers !== undefined
      ? { approvers: deciding.approvers }
      : {}),
    ...(deciding.command === undefined ? {} : { command: deciding.command }),
  };
}

function generatedReason(toolName: string, vote: PolicyVote): string {
  const verb: Record<Decision, string> = {
    allow: "allows",
    ask: "requires approval for",
    deny: "denies",
  };
  return `rule ${vote.rule} ${verb[vote.decision]} this ${toolName} call`;
}

function defaultVerdict(
  tool: { readonly name: string; readonly writes: boolean; readonly writesPerCall?: true },
  defaults: EffectiveDefaults,
  notes: readonly string[],
): PolicyVerdict {
  const kind = tool.writes ? "writes" : "reads";
  const decision = defaults[kind];
  const from = defaults[`${kind}From`];
  const reason =
    tool.writes && decision === "ask"
      ? `${tool.name} can change things, and no rule allows it, so a human must approve it.`
      : tool.writesPerCall === true && !tool.writes
        ? `this ${tool.name} call only reads (the tool decided so from its arguments), and no rule matched; the default for reads is ${decision}.`
        : `no rule matched this ${tool.name} call; the default for ${kind} is ${decision}.`;
  const lines = [
    `${decision} by default:${kind} (layer default): ${reason}`,
    `no rule matched; defaults.${kind} is ${decision} (${from === "built-in" ? "built-in default" : `set by layer ${from}`})`,
    ...notes.map((note) => `note: ${note}`),
  ];
  return {
    decision,
    reason,
    rule: `default:${kind}`,
    layer: "default",
    explanation: lines.join("\n"),
  };
}
