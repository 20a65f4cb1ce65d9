import { homedir } from "node:os";
import * as path from "node:path";
import picomatch from "picomatch";
import { BUILTIN_LISTS } from "../builtin/builtin-lists.js";
import { createAnalysisCache } from "./analysis-cache.js";
import { withGrant } from "./call-grant.js";
import { CallView } from "./call-view.js";
import { chooseVerdict } from "./choose-verdict.js";
import {
  compileLayers,
  type EffectiveDefaults,
  LAYER_STRIDE,
  layerRank,
} from "./compile-layers.js";
import { compileRule } from "./compile-rule.js";
import type { CompiledRule } from "./compiled-rule.js";
import { matchRule } from "./match-rule.js";
import { notARead } from "./not-a-read.js";
import type { PolicyEngine, PolicyRequest, PolicyVerdict } from "./policy.js";
import { throwIssues } from "./policy-issue.js";
import type { PolicyLayer, PolicyRuleSpec } from "./policy-rule.js";
import type { PolicyVote } from "./policy-vote.js";
import { voteOf } from "./policy-vote.js";
import { realPath, resolvePolicyPath } from "./resolve-policy-path.js";
import { createRuleIndex } from "./rule-index.js";
import { type SelfProtection, selfProtectionVote } from "./self-protection-vote.js";
import { shellCoverage } from "./shell/judge-shell.js";
import type { ShellAnalysis } from "./shell/shell-analysis.js";
import { type ShellCandidate, shellVote } from "./shell-vote.js";

/** What `createPolicyEngine` takes. */
export interface PolicyEngineOptions {
  /** The layers, in any order: managed, user, project (and any grants made up front). */
  readonly layers: readonly PolicyLayer[];
  /** Where relative path arguments and relative path patterns point (default: the cwd). */
  readonly workspace?: string;
  /** What `~` expands to (default: the user's home directory). */
  readonly home?: string;
  /** How many analysed shell scripts to remember by exact text (default 256; 0 disables). */
  readonly analysisCacheSize?: number;
  /**
   * docket's own files (and CLI): any call naming them is denied by rule `docket:self-protection`
   * (layer `docket`), which no rule can override. Default: none (library use).
   */
  readonly protection?: SelfProtection;
  /**
   * When tree-sitter-bash loads: `"at-start"` (default) at creation, when a rule or
   * self-protection needs shell analysis, so decisions stay synchronous; `"when-needed"` with
   * the first command that is not plain words (`ls -la src` is analysed without it), that
   * call's decision awaiting the load: what a process deciding one call wants (`docket policy
   * check`, a hook), and what the CLI uses. Verdicts are the same.
   */
  readonly shellParser?: "at-start" | "when-needed";
}

/** A rule as listed by `engine.rules()`. */
export interface RuleSummary {
  readonly id: string;
  readonly layer: string;
  readonly decision: PolicyVerdict["decision"];
  readonly tools: readonly string[];
}

/** The engine built from policy layers: the checkpoint's `policy`, plus session grants. */
export interface DocketPolicyEngine extends PolicyEngine {
  /**
   * Decide a call. Synchronous unless the call needs shell analysis and the parser is not loaded
   * yet; never throws for a valid request.
   */
  decide(request: PolicyRequest): PolicyVerdict | Promise<PolicyVerdict>;
  /**
   * Add a rule to the session layer (e.g. "approve for this session") and return its id
   * (default `session:N`). With `sessionId` the grant applies only to that session's calls.
   * Throws `DocketError("policy_invalid")` for a bad rule.
   */
  grant(rule: PolicyRuleSpec, options?: { readonly sessionId?: string }): string;
  /** Remove a session grant by id; false when there is none (rules from files cannot be revoked). */
  revoke(id: string): boolean;
  /** Every rule, strongest layer first. */
  rules(): readonly RuleSummary[];
  /** The defaults in force and the layers that set them. */
  readonly defaults: EffectiveDefaults;
  /**
   * The deny rule whose `path` protects a file from reading tools (`read_file`, `search_files`),
   * so that listings and searches can leave it out; undefined when none does.
   */
  deniedPath(absolute: string): { readonly rule: string; readonly reason: string } | undefined;
  /**
   * Whether an allow rule names exactly this file for this tool: a `path` without any glob that
   * resolves to it, and no `when`. What lets a file tool write version-control metadata, which it
   * otherwise refuses whatever the policy allows (ADR 0031).
   */
  allowsExactly(tool: string, absolute: string): boolean;
}

/**
 * Compile policy layers into an engine. Every matcher is compiled here (globs, CEL, host and
 * shell patterns); any problem throws `DocketError("policy_invalid")` naming the file, line and
 * path, so a bad policy stops docket at start rather than running with part of it. The shell
 * parser is loaded here when a rule needs it, so decisions stay synchronous.
 *
 * @example
 * ```ts
 * import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
 * declare const tools: import("../tool/tool.js").Tool[];
 * const engine = await createPolicyEngine({
 *   layers: [{ name: "project", rules: [{ decision: "deny", tool: "run_command", command: "rm *", reason: "no deletions" }] }],
 *   workspace: process.cwd(),
 * });
 * const checkpoint = createCheckpoint({ tools, policy: engine });
 * ```
 */
export async function createPolicyEngine(
  options: PolicyEngineOptions,
): Promise<DocketPolicyEngine> {
  const home = options.home ?? homedir();
  const workspace = path.resolve(options.workspace ?? process.cwd());
  const pathContext = { workspace, workspaceReal: realPath(workspace), home };
  const compiled = compileLayers(options.layers, { home });
  const index = createRuleIndex(compiled.rules);
  const others = options.layers
    .map((layer) => layer.name)
    .filter((name) => layerRank(name, []) >= 4);
  const sessionRank = layerRank("session", others);
  let nextGrant = options.layers.find((layer) => layer.name === "session")?.rules?.length ?? 0;

  type Analyse = (script: string) => ShellAnalysis;
  let parser: Analyse | undefined;
  let parserLoading: Promise<Analyse> | undefined;
  const ensureParser = (): Promise<Analyse> => {
    // The analyser's modules and tree-sitter load with the first shell call: a process that
    // judges only other tools (a hook's Read, a policy check of read_file) never loads them.
    parserLoading ??= import("./shell/shell-parser.js")
      .then(({ loadShellParser }) => loadShellParser())
      .then((loaded) => {
        parser = createAnalysisCache(loaded, options.analysisCacheSize ?? 256);
        return parser;
      });
    // A failed load is retried on the next call instead of being cached.
    parserLoading.catch(() => {
      parserLoading = undefined;
    });
    return parserLoading;
  };
  // Plain-words commands analysed before tree-sitter has loaded (or without it at all).
  let plain: ((script: string) => ShellAnalysis | undefined) | undefined;
  const analyserFor = (request: PolicyRequest): Analyse | undefined => {
    if (parser !== undefined || plain === undefined) return parser;
    const value = new CallView(request, pathContext).command()?.value;
    const found = typeof value === "string" ? plain(value) : undefined;
    if (found === undefined) return undefined;
    // Only ever asked for this call's command; anything else fails closed.
    return (script) => (script === value ? found : (plain?.(script) ?? unanalysed(script)));
  };
  const protection = options.protection;
  let pathRules = compiled.rules.some((rule) => rule.paths !== undefined);
  if (protection !== undefined || compiled.rules.some((rule) => rule.shell !== undefined)) {
    if (options.shellParser === "when-needed") {
      plain = (await import("./shell/plain-analysis.js")).plainAnalysis;
    } else await ensureParser();
  }

  const verdictOf = (
    view: CallView,
    votes: readonly PolicyVote[],
    notes: readonly string[],
    matched: readonly CompiledRule[],
    shell: readonly ShellCandidate[] = [],
  ): PolicyVerdict => {
    const verdict = withGrant(
      chooseVerdict(view.request.tool, votes, compiled.defaults, notes),
      view,
      votes,
      matched,
    );
    // Only asks reach a person; they are told which sub-commands no rule covered.
    const analysis = verdict.decision === "ask" ? view.analysis() : undefined;
    if (analysis === undefined) return verdict;
    const rules = shell.flatMap((candidate) => candidate.rule.shell?.rule ?? []);
    return {
      ...verdict,
      ...notARead(view.request.tool, analysis, verdict.reason),
      shell: shellCoverage(analysis, rules, judging(view)),
    };
  };

  // A command proven read-only needs no rule of its own beside allowed ones (`echo ok && npm
  // test`) where reads are allowed by default, for a tool that tells reads apart (run_command).
  const judging = (view: CallView) => ({
    readsCovered: view.request.tool.writesPerCall === true && compiled.defaults.reads === "allow",
  });

  const judgeShell = (
    view: CallView,
    shell: readonly ShellCandidate[],
    votes: PolicyVote[],
    notes: readonly string[],
    matched: readonly CompiledRule[],
    analyse: Analyse,
  ): PolicyVerdict => {
    const vote = shellVote(shell, view.command()?.value, analyse, judging(view));
    if (vote !== undefined) votes.push(vote);
    return verdictOf(view, votes, notes, matched, shell);
  };

  const decide = (request: PolicyRequest): PolicyVerdict | Promise<PolicyVerdict> => {
    const analyse = analyserFor(request);
    // Self-protection and path rules read a command's words, which takes the parser.
    if (
      analyse === undefined &&
      request.tool.policyArgs?.command !== undefined &&
      (protection !== undefined || pathRules)
    ) {
      return ensureParser().then(() => decide(request));
    }
    const view = new CallView(request, pathContext, analyse);
    const votes: PolicyVote[] = [];
    if (protection !== undefined) {
      const vote = selfProtectionVote(view, protection, { workspace, home }, view.analysis());
      if (vote !== undefined) votes.push(vote);
    }
    const notes: string[] = [];
    const shell: ShellCandidate[] = [];
    // The matched rules with a `when`: a session grant binds what their conditions read.
    const conditioned: CompiledRule[] = [];
    for (const rule of index.candidates(request.tool.name)) {
      if (rule.sessionId !== undefined && rule.sessionId !== request.sessionId) continue;
      const match = matchRule(rule, view);
      if (match.note !== undefined) notes.push(`rule ${rule.id}: ${match.note}`);
      if (!match.matched) continue;
      if (rule.when !== undefined) conditioned.push(rule);
      if (rule.shell !== undefined) shell.push({ rule, texts: match.texts });
      else votes.push(voteOf(rule, match.texts));
    }
    // The common case stays synchronous: no shell rule matched, or the parser is already loaded.
    if (shell.length === 0) return verdictOf(view, votes, notes, conditioned);
    if (analyse !== undefined) return judgeShell(view, shell, votes, notes, conditioned, analyse);
    // A view that reads the analysis, so an ask still lists the sub-commands no rule covered.
    return ensureParser().then((loaded) =>
      judgeShell(
        new CallView(request, pathContext, loaded),
        shell,
        votes,
        notes,
        conditioned,
        loaded,
      ),
    );
  };

  return {
    decide,
    grant(spec, grantOptions = {}) {
      const number = nextGrant++;
      const result = compileRule(spec, {
        layer: "session",
        index: number,
        order: sessionRank * LAYER_STRIDE + number,
        at: [],
        home,
        sessionId: grantOptions.sessionId,
      });
      const issues = [...result.issues];
      if (result.rule !== undefined && index.all().some((rule) => rule.id === result.rule?.id)) {
        issues.push({
          path: ["id"],
          message: `duplicate rule id ${JSON.stringify(result.rule.id)}`,
        });
      }
      if (issues.length > 0 || result.rule === undefined) throwIssues(issues, { layer: "grant" });
      index.add(result.rule);
      if (result.rule.paths !== undefined) pathRules = true;
      if (result.rule.shell !== undefined) void ensureParser().catch(() => undefined);
      return result.rule.id;
    },
    revoke(id) {
      const rule = index.all().find((candidate) => candidate.id === id);
      return (
        rule !== undefined &&
        rule.layer === "session" &&
        rule.order >= sessionRank * LAYER_STRIDE &&
        index.remove(id)
      );
    },
    rules: () => index.all().map(summarise),
    defaults: compiled.defaults,
    deniedPath(absolute) {
      const target = resolvePolicyPath(absolute, pathContext);
      for (const rule of index.all()) {
        if (rule.decision !== "deny" || rule.paths === undefined || rule.sessionId !== undefined) {
          continue;
        }
        if (
          !rule.tools.some((tool) => BUILTIN_LISTS.readingContents.some((name) => tool.test(name)))
        )
          continue;
        if (rule.paths.some((pattern) => pattern.test(target, "restrict"))) {
          return { rule: rule.id, reason: rule.reason ?? `rule ${rule.id} denies reading it` };
        }
      }
      return undefined;
    },
    allowsExactly(tool, absolute) {
      const target = resolvePolicyPath(absolute, pathContext);
      return index
        .all()
        .some(
          (rule) =>
            rule.decision === "allow" &&
            rule.when === undefined &&
            rule.tools.some((glob) => glob.test(tool)) &&
            (rule.paths ?? []).some(
              (pattern) => !picomatch.scan(pattern.text).isGlob && pattern.test(target, "allow"),
            ),
        );
    },
  };
}

/** What an analysis that cannot be made says: uncertain, so no allow rule allows. */
function unanalysed(script: string): ShellAnalysis {
  return {
    commands: [],
    uncertainties: [
      {
        reason: "analysis_failed",
        text: script.slice(0, 200),
        detail: "the script was not analysed",
      },
    ],
  };
}

function summarise(rule: CompiledRule): RuleSummary {
  return {
    id: rule.id,
    layer: rule.layer,
    decision: rule.decision,
    tools: rule.tools.map((tool) => tool.text),
  };
}
