import { randomUUID } from "node:crypto";
import type { LanguageModelV4, LanguageModelV4FunctionTool } from "@ai-sdk/provider";
import type { DecisionAttempt, DecisionOutcome } from "../approval/decide-approval.js";
import type { EventSink } from "../checkpoint/call-event.js";
import type { ToolOutputChunk } from "../checkpoint/checkpoint-options.js";
import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
import { storedLabelSources } from "../checkpoint/stored-label-sources.js";
import { DocketError } from "../errors/docket-error.js";
import { asModelV4 } from "../model/as-model-v4.js";
import { resolveModel } from "../model/resolve-model.js";
import { checkPolicyConfig } from "../policy/check-policy-config.js";
import { toPolicyFunction } from "../policy/policy.js";
import type { Store } from "../store/store.js";
import { resolveTelemetry } from "../telemetry/telemetry.js";
import { earlierTaint } from "./earlier-taint.js";
import { resolveHarnessApprovals } from "./harness-approvals.js";
import {
  type HarnessEvent,
  type HarnessOptions,
  type RunOptions,
  type RunResult,
  resolveHarnessLimits,
} from "./harness-options.js";
import {
  DEFAULT_LEASE_TTL_MS,
  type HeldLease,
  holdSessionLease,
  keepSessionLease,
  sessionBusy,
} from "./hold-session-lease.js";
import { type RunContext, runLoop } from "./run-loop.js";
import { type OutputSchema, runOutputFormat } from "./run-output.js";
import { sessionTitle } from "./session-title.js";
import { sessionTranscript } from "./session-transcript.js";
import type { TranscriptMessage } from "./transcript-message.js";

/** An agent: a model, tools behind the checkpoint, and a store for its sessions. */
export interface Harness {
  /**
   * Start a run (a new session unless `sessionId` is given) with the user's input. With
   * `output`, the completed run's final answer is validated against it into `result.output`.
   */
  run<OUTPUT>(
    input: string,
    options: RunOptions & { readonly output: OutputSchema<OUTPUT> },
  ): Promise<RunResult<OUTPUT>>;
  run(input: string, options?: RunOptions): Promise<RunResult>;
  /** Continue a saved session: a suspended batch, a cancelled or failed run. */
  resume<OUTPUT>(
    sessionId: string,
    options: Omit<RunOptions, "sessionId"> & { readonly output: OutputSchema<OUTPUT> },
  ): Promise<RunResult<OUTPUT>>;
  resume(sessionId: string, options?: Omit<RunOptions, "sessionId">): Promise<RunResult>;
  /**
   * Decide a waiting request through the same checks as every channel (the claimed approver must
   * be one of `approvals.approvers` allowed for the request, and not the agent). Needs the
   * durable form of `approvals`; with an approver function it throws `DocketError`.
   */
  decideApproval(attempt: DecisionAttempt): Promise<DecisionOutcome>;
  /** The store, once opened. */
  store(): Promise<Store>;
  /** Close the store if the harness opened it; a later run or `store()` opens it again. */
  close(): Promise<void>;
}

/**
 * Create a harness. docket owns the loop; the model only predicts text and tool requests.
 *
 * @example
 * ```ts
 * import { builtinTools, createHarness } from "docket";
 * const harness = createHarness({ model: "anthropic:claude-sonnet-4-5", tools: builtinTools({ workspace: "." }) });
 * const result = await harness.run("What does this project do?");
 * console.log(result.status, result.text);
 * ```
 *
 * @example
 * ```ts
 * import type { Tool } from "docket";
 * declare const tools: Tool[];
 * // Durable approvals in one option: requests kept in the harness's store, any channel answers.
 * const desk = createHarness({
 *   model: "openai-compatible:gpt-4o-mini",
 *   tools,
 *   approvals: { approvers: { alice: { roles: ["lead"] } } },
 * });
 * let result = await desk.run("Refund SU-1.");
 * for (const { approvalId } of result.approvals ?? []) {
 *   await desk.decideApproval({ approvalId, decision: "approve", claim: { name: "alice" } });
 * }
 * if (result.status === "suspended") result = await desk.resume(result.sessionId);
 * ```
 */
export function createHarness(options: HarnessOptions): Harness {
  const limits = resolveHarnessLimits(options.limits);
  const principal = options.principal ?? "agent";
  const tools = options.tools ?? [];
  let model: Promise<LanguageModelV4> | undefined;
  let storePromise: Promise<Store> | undefined;
  const ownsStore = typeof options.store !== "object";
  const approvals = resolveHarnessApprovals(options.approvals);

  const getModel = () => {
    model ??=
      typeof options.model === "string"
        ? resolveModel(options.model, options.modelSettings)
        : Promise.resolve().then(() =>
            asModelV4(options.model as Exclude<typeof options.model, string>),
          );
    return model;
  };
  const getStore = () => {
    storePromise ??= (async () => {
      if (typeof options.store === "object") return options.store;
      const { openStore } = await import("../store/open-store.js");
      const { resolveStoreUrl } = await import("../store/resolve-store-url.js");
      return openStore(options.store ?? resolveStoreUrl());
    })();
    return storePromise;
  };
  const policy = options.policy;
  if (typeof policy === "object" && policy !== null && !("decide" in policy)) {
    // A plain { rules } policy compiles now: a bad rule throws from createHarness, not later.
    checkPolicyConfig(
      policy,
      tools.map((tool) => tool.name),
    );
  }
  // Made once for every run of this harness: a plain { rules } policy turned into a function per
  // run would build its engine (and compile every rule) again each run. An engine given here is
  // asked at each call, so a policy holder's reload (the CLI's watchPolicy) still takes effect.
  const decide = policy ? toPolicyFunction(policy) : undefined;
  const menu: LanguageModelV4FunctionTool[] = tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as LanguageModelV4FunctionTool["inputSchema"],
  }));

  const execute = async (
    sessionId: string | undefined,
    input: string | undefined,
    run: RunOptions,
  ): Promise<RunResult> => {
    // A schema that cannot describe itself fails here, before a session is made.
    const format = run.output === undefined ? undefined : runOutputFormat(run.output);
    const store = await getStore();
    const resolvedModel = await getModel();
    const title = input === undefined ? undefined : sessionTitle(input);
    const runId = randomUUID();
    const owner = `${store.owner}#${runId}`;
    const leaseOptions = { ...options.lease, ...run.lease };
    let id: string;
    let lease: HeldLease;
    // A new session's first messages: the system prompt (part of the session, so a resume by any
    // harness sends the same one) and the user's prompt.
    const opening: TranscriptMessage[] = [];
    if (sessionId === undefined) {
      if (options.system) opening.push({ role: "system", text: options.system });
      if (input !== undefined) opening.push({ role: "user", text: input });
      const ttlMs = leaseOptions.ttlMs ?? DEFAULT_LEASE_TTL_MS;
      // The session, its lease and its first messages in one commit (ADR 0072): a crash leaves
      // all of them or none, and no other runner can come between.
      const started = await store.startSession(
        { principal, configHash: options.configHash ?? "", ...(title ? { title } : {}) },
        {
          lease: { owner, ttlMs },
          messages: opening.map((message) => ({ role: message.role, content: message })),
        },
      );
      if (started.status === "held") throw sessionBusy(started.lease);
      id = started.session.id;
      lease = keepSessionLease(store, id, owner, ttlMs);
    } else {
      id = sessionId;
      const existing = await store.getSession(id);
      if (!existing) {
        throw new DocketError("unknown_session", `There is no session ${id} in ${store.location}.`);
      }
      // A session opened without a prompt is named after the first one it gets.
      if (title && existing.title === undefined) await store.updateSession(id, { title });
      // Before anything reads or writes the session: one runner per session, across processes.
      lease = await holdSessionLease(store, id, owner, leaseOptions);
    }
    const fresh = sessionId === undefined;
    try {
      // The lease makes this run the session's only runner, so what an earlier holder whose
      // process is gone left open is settled now, not at the next open of a store (this store
      // may have opened before that holder died): a claim it never started is released, so the
      // call runs once; a write it started is closed as interrupted. Live owners are left alone.
      // A session this run has just created has had no earlier holder.
      if (!fresh) await store.markInterrupted({ sessionId: id });
      const result = await leased(store, resolvedModel, id, input, run, runId, {
        lease,
        opening: fresh ? opening : undefined,
        ...(format ? { responseFormat: format.responseFormat } : {}),
      });
      return format && result.status === "completed"
        ? { ...result, output: await format.check(result.text) }
        : result;
    } finally {
      await lease.release();
    }
  };

  const leased = async (
    store: Store,
    resolvedModel: LanguageModelV4,
    id: string,
    input: string | undefined,
    run: RunOptions,
    runId: string,
    {
      lease,
      opening,
      responseFormat,
    }: {
      lease: HeldLease;
      /** Set when this run created the session, with the messages committed with it. */
      opening: readonly TranscriptMessage[] | undefined;
      responseFormat?: RunContext["responseFormat"];
    },
  ): Promise<RunResult> => {
    const fresh = opening !== undefined;
    // A session made for this run is read from nothing but what this run writes to it.
    const transcript = sessionTranscript(store, id, {
      created: fresh,
      ...(fresh ? { opening } : {}),
    });
    if (input !== undefined && !fresh && (await transcript.pendingBatch())) {
      throw new DocketError(
        "session_pending",
        `Session ${id} has tool calls waiting (approvals or an interrupted batch): resume it first (harness.resume, docket resume ${id}).`,
      );
    }
    // A session's untrusted results outlive the run (and process) that fetched them.
    // Its private results too: those the trail marks (a sensitive read, a masked secret).
    const earlier = fresh
      ? []
      : [
          ...earlierTaint(await transcript.load()),
          ...(await storedLabelSources(store, id)).filter((source) => source.label === "private"),
        ];
    const emit = run.onEvent ?? (() => {});
    const approver = await approvals.approverFor(store);
    const checkpoint = createCheckpoint({
      tools,
      store,
      principal,
      taint: {
        ...options.taint,
        ...(earlier.length > 0 ? { earlier: { sessionId: id, sources: earlier } } : {}),
      },
      ...(options.flow ? { flow: options.flow } : {}),
      limits: {
        maxCallsPerBatch: limits.maxToolCallsPerBatch,
        maxCallsPerRun: limits.maxToolCallsPerRun,
        maxResultBytes: limits.maxResultBytes,
      },
      ...(decide ? { policy: decide } : {}),
      ...(approver ? { approvals: approver } : {}),
      ...(run.onEvent
        ? watchCalls(emit, options.events)
        : options.events
          ? { events: options.events }
          : {}),
      ...(options.telemetry ? { telemetry: options.telemetry } : {}),
      ...(options.toolLint === undefined ? {} : { toolLint: options.toolLint }),
    });
    emit({ type: "run_start", sessionId: id });
    if (input !== undefined && !fresh) await transcript.append({ role: "user", text: input });
    try {
      return await runLoop({
        model: resolvedModel,
        checkpoint,
        menu,
        transcript,
        sessionId: id,
        runId,
        principal,
        limits,
        retries: options.retries,
        ...(options.reasoning ? { reasoning: options.reasoning } : {}),
        ...(responseFormat ? { responseFormat } : {}),
        telemetry: resolveTelemetry(options.telemetry),
        signal: run.signal ? AbortSignal.any([run.signal, lease.lost]) : lease.lost,
        emit,
        listening: run.onEvent !== undefined,
        // A new session is created active; a resumed one becomes active once it has work.
        ...(fresh ? {} : { markActive: () => store.updateSession(id, { status: "active" }) }),
        setStatus: async (status, closing) => {
          // A handler stopped by a cancel or its deadline ends first: nothing of this run is
          // still writing when its lease goes, in the run's last commit (ADR 0072).
          await checkpoint.drain();
          const messages = closing ? [{ role: closing.role, content: closing }] : [];
          await lease.releaseWith(() =>
            store.endRun(id, { status, messages, releaseLease: lease.owner }),
          );
        },
      });
    } finally {
      // A handler stopped by a cancel or its deadline may still be ending (a killed command):
      // its late completion is recorded before the caller closes the store.
      await checkpoint.drain();
    }
  };

  // Runs of one session in this harness take turns (a second waits rather than being refused
  // by the lease); across processes and harnesses the session's lease keeps one runner.
  const busy = new Map<string, Promise<unknown>>();
  const serialised = (
    sessionId: string | undefined,
    input: string | undefined,
    run: RunOptions,
  ): Promise<RunResult> => {
    if (sessionId === undefined) return execute(sessionId, input, run);
    const mine = (busy.get(sessionId) ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => execute(sessionId, input, run));
    busy.set(sessionId, mine);
    void mine
      .finally(() => {
        if (busy.get(sessionId) === mine) busy.delete(sessionId);
      })
      .catch(() => undefined);
    return mine;
  };

  return {
    run: (input: string, run: RunOptions = {}) => serialised(run.sessionId, input, run),
    resume: (sessionId: string, run: RunOptions = {}) => serialised(sessionId, undefined, run),
    decideApproval: async (attempt) => approvals.decide(await getStore(), attempt),
    store: getStore,
    async close() {
      if (!storePromise || !ownsStore) return;
      const closing = storePromise;
      // A later run opens the store again, as the first one did.
      storePromise = undefined;
      await (await closing).close();
    },
  };
}

/**
 * What a watcher of the run learns from the checkpoint as calls go: an approval about to be
 * asked, a handler starting, a handler's live output. The sink never throws and returns nothing,
 * so it cannot stop or slow a call.
 */
function watchCalls(
  emit: (event: HarnessEvent) => void,
  also: EventSink | undefined,
): {
  events: EventSink;
  onOutput: (output: ToolOutputChunk) => void;
} {
  const safe = (event: HarnessEvent) => {
    try {
      emit(event);
    } catch {
      // A watcher's failure is not the call's.
    }
  };
  return {
    events: {
      emit(event, options) {
        // The caller's own sink (`events`) sees every event, and its promise is the checkpoint's.
        const pending = also?.emit(event, options);
        if (event.type === "approval_requested")
          safe({ type: "approval_requested", callId: event.callId, name: event.tool });
        else if (event.type === "started")
          safe({ type: "tool_started", callId: event.callId, name: event.tool });
        return pending;
      },
    },
    onOutput: ({ callId, tool, stream, chunk }) =>
      safe({ type: "tool_output", callId, name: tool, stream, chunk }),
  };
}
