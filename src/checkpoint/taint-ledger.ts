import type { Tool } from "../tool/tool.js";

/** How long a taint lasts: the rest of the run, or of the session (its transcript keeps the text). */
export type TaintScope = "run" | "session";

/** What happens, while tainted, to a write a rule would allow. */
export type TaintedWrites = "ask" | "allow";

/** The `taint` option of `createCheckpoint` (and docket.yaml's `taint:` section). */
export interface TaintOptions {
  /** Default `session`: an untrusted page stays in the transcript for the session's later runs. */
  readonly scope?: TaintScope;
  /** Default `ask`: a write a rule allows is asked instead while tainted. */
  readonly writes?: TaintedWrites;
  /**
   * Open-world results a session received before this checkpoint existed (its transcript still
   * holds them): the session starts tainted by them. The harness fills it in.
   */
  readonly earlier?: { readonly sessionId: string; readonly sources: readonly TaintSource[] };
}

/**
 * A result that labelled a run: which tool, from where, at which call. Without `label` it is an
 * open-world result (`untrusted`); `private` marks a sensitive read or a result holding a secret.
 */
export interface TaintSource {
  readonly label?: "untrusted" | "private";
  readonly tool: string;
  /** Where the text came from in words: `fetch_url https://…`, or the tool's name. */
  readonly source: string;
  readonly callId: string;
}

/** What the policy sees of a run's taint (CEL `run.tainted`, `run.tainted_by`). */
export interface RunTaint {
  readonly tainted: boolean;
  /** The open-world results so far, oldest first (the first few and the latest are kept). */
  readonly sources: readonly TaintSource[];
  /** How many open-world results arrived in all. */
  readonly count: number;
}

/** The taint of a run that has read nothing from outside. */
export const UNTAINTED: RunTaint = Object.freeze({
  tainted: false,
  sources: Object.freeze([]) as readonly TaintSource[],
  count: 0,
});

const KEPT_SOURCES = 8;
const MAX_SOURCE_CHARS = 200;

/**
 * Where an open-world result came from, in words for an approver: the tool and, when it declares
 * a URL argument, the URL. Capped, since the URL is the model's text.
 *
 * @example
 * ```ts
 * declare const fetchUrlTool: import("../tool/tool.js").Tool;
 * describeSource(fetchUrlTool, { url: "https://example.com/page" }); // "fetch_url https://example.com/page"
 * ```
 */
export function describeSource(tool: Tool, args: Readonly<Record<string, unknown>>): string {
  const key = tool.policyArgs.url;
  const url = key === undefined ? undefined : args[key];
  return cleanSource(typeof url === "string" ? `${tool.name} ${url}` : tool.name);
}

/**
 * A source's words made safe to show: control and format characters replaced (they would let a
 * URL or path rewrite the approver's terminal line), capped at 200 characters.
 *
 * @example
 * ```ts
 * cleanSource("read_file a\u001b[2Jb.txt"); // "read_file a?[2Jb.txt"
 * ```
 */
export function cleanSource(text: string): string {
  const clean = text.replace(/[\p{Cc}\p{Cf}]/gu, "?");
  return clean.length > MAX_SOURCE_CHARS ? `${clean.slice(0, MAX_SOURCE_CHARS)}…` : clean;
}

/**
 * The words an approval prompt shows for a tainted run: the latest untrusted result before it.
 *
 * @example
 * ```ts
 * declare const taint: RunTaint;
 * describeTaint(taint); // "after fetch_url https://example.com/page (call call_4)"
 * ```
 */
export function describeTaint(taint: RunTaint): string {
  const last = taint.sources[taint.sources.length - 1];
  if (last === undefined) return "after untrusted content";
  const more = taint.count > 1 ? `, and ${taint.count - 1} earlier untrusted result(s)` : "";
  return `after ${last.source} (call ${last.callId})${more}`;
}

/**
 * Which runs or sessions of one checkpoint have received an open-world result. Held in memory
 * for the checkpoint's life; a run's entry goes with `endRun` when the scope is `run`.
 *
 * @example
 * ```ts
 * const ledger = new TaintLedger({ scope: "session" });
 * ledger.add(ledger.keyOf({ sessionId: "s1" }), { tool: "fetch_url", source: "fetch_url https://x", callId: "c1" });
 * ledger.of(ledger.keyOf({ sessionId: "s1" })).tainted; // true
 * ```
 */
export class TaintLedger {
  readonly scope: TaintScope;
  readonly writes: TaintedWrites;
  readonly #taints = new Map<string, RunTaint>();
  // The `private` label, kept apart so that taint (`untrusted`) keeps its meaning everywhere.
  readonly #private = new Map<string, RunTaint>();

  constructor({ scope = "session", writes = "ask", earlier }: TaintOptions = {}) {
    if (scope !== "run" && scope !== "session") {
      throw new TypeError(`taint.scope must be "run" or "session", not ${JSON.stringify(scope)}`);
    }
    if (writes !== "ask" && writes !== "allow") {
      throw new TypeError(`taint.writes must be "ask" or "allow", not ${JSON.stringify(writes)}`);
    }
    this.scope = scope;
    this.writes = writes;
    if (earlier !== undefined && scope === "session") {
      const key = this.keyOf({ sessionId: earlier.sessionId });
      for (const source of earlier.sources) {
        if (source.label === "private") this.addPrivate(key, source);
        else this.add(key, source);
      }
    }
  }

  /** The key a call's taint is kept under, by scope (falling back to whichever id there is). */
  keyOf(ctx: { readonly sessionId?: string; readonly runId?: string }): string {
    const first = this.scope === "run" ? ctx.runId : ctx.sessionId;
    const second = this.scope === "run" ? ctx.sessionId : ctx.runId;
    return first !== undefined ? `${this.scope}:${first}` : `other:${second ?? ""}`;
  }

  of(key: string): RunTaint {
    return this.#taints.get(key) ?? UNTAINTED;
  }

  /** The taint a call's run or session has. No key is built while nothing is tainted (the hot path). */
  ofCall(ctx: { readonly sessionId?: string; readonly runId?: string }): RunTaint {
    return this.#taints.size === 0 ? UNTAINTED : this.of(this.keyOf(ctx));
  }

  /** The `private` sources of a call's run or session (sensitive reads, detected secrets). */
  privateOfCall(ctx: { readonly sessionId?: string; readonly runId?: string }): RunTaint {
    return this.#private.size === 0 ? UNTAINTED : (this.#private.get(this.keyOf(ctx)) ?? UNTAINTED);
  }

  add(key: string, source: TaintSource): RunTaint {
    return keep(this.#taints, key, source);
  }

  /** Label a run or session `private`: it has read a sensitive path or tool, or a secret. */
  addPrivate(key: string, source: TaintSource): RunTaint {
    return keep(this.#private, key, { ...source, label: "private" });
  }

  /** Forget a run's taint (scope `run` only: a session's outlives its runs). */
  endRun(runId: string): void {
    if (this.scope === "run") {
      this.#taints.delete(`run:${runId}`);
      this.#private.delete(`run:${runId}`);
    }
  }
}

// The first few sources and the latest are kept: an approver needs the cause and the last one.
function keep(map: Map<string, RunTaint>, key: string, source: TaintSource): RunTaint {
  const before = map.get(key) ?? UNTAINTED;
  const sources =
    before.sources.length < KEPT_SOURCES
      ? [...before.sources, source]
      : [...before.sources.slice(0, KEPT_SOURCES - 1), source];
  const next = Object.freeze({
    tainted: true,
    sources: Object.freeze(sources),
    count: before.count + 1,
  });
  map.set(key, next);
  return next;
}
