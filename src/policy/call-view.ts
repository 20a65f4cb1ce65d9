import type { PolicyRequest } from "./policy.js";
import {
  type PathContext,
  type ResolvedPolicyPath,
  resolvePolicyPath,
} from "./resolve-policy-path.js";
import type { ShellAnalysis } from "./shell/shell-analysis.js";
import { commandFileOperands } from "./shell-file-operands.js";
import { parseUrlTarget, type UrlTarget } from "./url-target.js";
import type { ConditionContext } from "./when-condition.js";

/**
 * A call as the matchers see it: its path, URL, command and CEL variables, each computed at most
 * once per decision and only when a rule asks. A class rather than closures because one is made
 * for every call on the hot path.
 *
 * @example
 * ```ts
 * declare const request: import("./policy.js").PolicyRequest; // read_file of .env
 * const view = new CallView(request, { workspace: "/ws", workspaceReal: "/ws", home: "/home/ada" });
 * view.paths()?.[0]?.absolute; // "/ws/.env"
 * ```
 */
export class CallView {
  #paths: readonly ResolvedPolicyPath[] | undefined | null = null;
  #url: { readonly text: string; readonly target: UrlTarget | undefined } | undefined | null = null;
  #condition: ConditionContext | undefined;
  #analysis: ShellAnalysis | undefined | null = null;
  #commandPaths: readonly ResolvedPolicyPath[] | undefined | null = null;

  constructor(
    readonly request: PolicyRequest,
    private readonly pathContext: PathContext,
    private readonly analyse?: (script: string) => ShellAnalysis,
  ) {}

  /** The command argument, analysed (once); undefined without a string command or a parser. */
  analysis(): ShellAnalysis | undefined {
    if (this.#analysis === null) {
      const value = this.command()?.value;
      this.#analysis =
        typeof value === "string" && this.analyse !== undefined ? this.analyse(value) : undefined;
    }
    return this.#analysis;
  }

  /**
   * The words of the command argument that may name files (operands and redirect targets),
   * resolved like path arguments; what deny and ask `path` rules match on `run_command`.
   */
  commandPaths(): readonly ResolvedPolicyPath[] | undefined {
    if (this.#commandPaths === null) {
      const value = this.command()?.value;
      const analysis = this.analysis();
      this.#commandPaths =
        typeof value === "string" && analysis !== undefined
          ? commandFileOperands(value, analysis)
              .filter((word) => !word.includes("\0"))
              // The shell expands `$HOME`; a rule on `~/.ssh/**` must see it expanded too.
              .map((word) => word.replace(/^\$\{?HOME\}?(?=\/|$)/, "~"))
              .map((word) => resolvePolicyPath(word, this.pathContext))
          : undefined;
    }
    return this.#commandPaths;
  }

  /** The declared path argument(s), resolved; undefined when the tool declares none. */
  paths(): readonly ResolvedPolicyPath[] | undefined {
    if (this.#paths === null) {
      const declared = this.request.tool.policyArgs?.path;
      const keys =
        declared === undefined ? undefined : typeof declared === "string" ? [declared] : declared;
      this.#paths = keys
        ?.flatMap((key) => stringsOf(this.request.args[key]))
        .map((text) => resolvePolicyPath(text, this.pathContext));
    }
    return this.#paths;
  }

  /** The declared URL argument; undefined when the tool declares none. */
  url(): { readonly text: string; readonly target: UrlTarget | undefined } | undefined {
    if (this.#url === null) {
      const key = this.request.tool.policyArgs?.url;
      const value = key === undefined ? undefined : this.request.args[key];
      this.#url =
        key === undefined
          ? undefined
          : {
              text: String(value ?? ""),
              target: typeof value === "string" ? parseUrlTarget(value) : undefined,
            };
    }
    return this.#url;
  }

  /** The declared command argument's value (a string when valid); undefined when none is declared. */
  command(): { readonly value: unknown } | undefined {
    const key = this.request.tool.policyArgs?.command;
    return key === undefined ? undefined : { value: this.request.args[key] };
  }

  /** The variables of `when` expressions: `args`, `principal`, `caller`, `session`, `tool`, `run`, `call`. */
  condition(): ConditionContext {
    this.#condition ??= {
      args: this.request.args,
      principal: this.request.principal,
      session: { id: this.request.sessionId ?? "", labels: this.request.labels ?? [] },
      tool: { name: this.request.tool.name, writes: this.request.tool.writes },
      run: runOf(this.request.taint),
      call: { sends: this.request.sends === true },
      caller: {
        id: this.request.principal,
        client: this.request.caller?.client ?? "",
        scopes: this.request.caller?.scopes ?? NONE,
        groups: this.request.caller?.groups ?? NONE,
      },
    };
    return this.#condition;
  }
}

const NONE: readonly string[] = Object.freeze([]);

const UNTAINTED_RUN = Object.freeze({ tainted: false, tainted_by: Object.freeze([]) });

function runOf(taint: PolicyRequest["taint"]): ConditionContext["run"] {
  if (taint?.tainted !== true) return UNTAINTED_RUN;
  return { tainted: true, tainted_by: [...new Set(taint.sources.map((source) => source.tool))] };
}

// A path argument may hold one path or a list of them (e.g. `paths: [a, b]`).
function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string");
  return [];
}
