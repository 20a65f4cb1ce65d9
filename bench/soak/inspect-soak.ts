import { readFileSync } from "node:fs";
import type { TranscriptMessage, TranscriptToolResult } from "../../src/loop/transcript-message.js";
import type { Store } from "../../src/store/store.js";
import { SOAK_STEPS, SOAK_TEXTS } from "./soak-desk.js";

/** Refusals a store outage causes: the call was not run, and the model was told. */
const OUTAGE_REFUSALS = new Set(["audit_failed", "approval_error"]);

/**
 * What the soak left, checked: the effects file against every session's steps (each ran once,
 * or was closed as interrupted, or refused during the outage), each transcript's assistant turns
 * (each batch once, in order), each chain. `problems` names session, step and what was seen.
 *
 * @example
 * ```ts
 * const found = await inspectSoak(store, "/tmp/effects.log", 100);
 * console.log(found.problems); // []
 * ```
 */
export async function inspectSoak(store: Store, effectsFile: string, sessions: number) {
  const counts = new Map<string, number>();
  let writes = 0;
  for (const line of readFileSync(effectsFile, "utf8").split("\n")) {
    const [session, step] = line.split(" ");
    if (!session || !step) continue;
    writes += 1;
    counts.set(`${session} ${step}`, (counts.get(`${session} ${step}`) ?? 0) + 1);
  }
  let duplicates = 0;
  let missing = 0;
  let missingNotInterrupted = 0;
  let interrupted = 0;
  let duplicateBatches = 0;
  let brokenChains = 0;
  let outageRefusals = 0;
  const problems: string[] = [];
  const notRun: string[] = [];
  const all = await store.listSessions({ limit: 10_000 });
  if (all.length !== sessions)
    throw new Error(`expected ${sessions} sessions, found ${all.length}`);
  for (const session of all) {
    if (session.status !== "completed") {
      const lease = await store.getLease(session.id);
      problems.push(
        `${session.id}: not completed (${session.status}; lease ${lease ? `${lease.owner} until ${lease.expiresAt}` : "none"})`,
      );
    }
    const closed = await store.listInterrupted(session.id);
    interrupted += closed.length;
    const interruptedSteps = new Set(closed.map((c) => c.callId.split("_")[0]));
    const transcript = (await store.loadTranscript(session.id)).map(
      (m) => m.content as TranscriptMessage,
    );
    const told = resultsByStep(transcript);
    for (const step of SOAK_STEPS) {
      const n = counts.get(`${session.id} ${step}`) ?? 0;
      const result = told.get(step);
      if (n > 1) {
        duplicates += n - 1;
        problems.push(`${session.id} ${step}: ran ${n} times`);
      }
      if (n === 0) {
        missing += 1;
        // A write may be absent only where at most once had to give up exactly once: its call
        // closed as interrupted (killed between its intent and its effect; the model is told the
        // outcome is unknown), or refused while the database was away (fail closed: its intent
        // or its approval could not be read or recorded; the model is told, and the call id
        // stays refused). Anything else is a write lost.
        const closed = interruptedSteps.has(step);
        const refusedInOutage =
          result?.status === "refused" && OUTAGE_REFUSALS.has(result.reason ?? "");
        if (closed) notRun.push(`${session.id} ${step}: interrupted`);
        else if (refusedInOutage) {
          outageRefusals += 1;
          notRun.push(`${session.id} ${step}: refused (${result.reason}) during the outage`);
        } else {
          missingNotInterrupted += 1;
          problems.push(
            `${session.id} ${step}: never ran, yet the model was told ${result ? `${result.status} (${result.reason ?? "-"}): ${result.text.slice(0, 160)}` : "nothing"}; ${await callHistory(store, session.id, result?.callId)}`,
          );
        }
      }
    }
    const texts = transcript.filter((m) => m.role === "assistant").map((m) => m.text);
    if (texts.join("\n") !== SOAK_TEXTS.join("\n") && session.status === "completed") {
      duplicateBatches += Math.max(1, texts.length - SOAK_TEXTS.length);
      problems.push(`${session.id}: assistant turns ${JSON.stringify(texts)}`);
    }
    const chain = await store.verifyChain(session.id);
    if (!chain.ok) {
      brokenChains += 1;
      problems.push(`${session.id}: chain does not verify: ${JSON.stringify(chain)}`);
    }
  }
  return {
    writes,
    duplicates,
    missing,
    missingNotInterrupted,
    interrupted,
    duplicateBatches,
    brokenChains,
    outageRefusals,
    problems,
    notRun,
  };
}

/** The results the model was sent, by the soak step named in their call id. */
function resultsByStep(transcript: readonly TranscriptMessage[]) {
  const byStep = new Map<string, TranscriptToolResult>();
  for (const message of transcript) {
    if (message.role !== "tool") continue;
    for (const result of message.results) byStep.set(result.callId.split("_")[0] ?? "", result);
  }
  return byStep;
}

/** What the store holds of one call, for a failure message: its row and its events. */
async function callHistory(store: Store, sessionId: string, callId: string | undefined) {
  if (!callId) return "no call";
  const [row] = await store.listCalls({ sessionId, callId, limit: 1 });
  const events = await store.listEvents({ sessionId, callId });
  const trail = events
    .map(
      (e) =>
        `${e.type}${"reason" in e.event && e.event.reason ? `(${e.event.reason})` : ""}@${e.at}`,
    )
    .join(" ");
  return `row ${row?.state}/${row?.outcome?.kind ?? "-"} owner ${row?.owner} claimed ${row?.claimedAt} started ${row?.startedAt}; events ${trail}`;
}
