import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { publicKeyFileOf, readPublicKey } from "../src/audit/audit-key.js";
import { createAuditSigner } from "../src/audit/create-audit-signer.js";
import { openDigestLog } from "../src/audit/digest-log.js";
import { verifyStoreTrail } from "../src/audit/verify-store-trail.js";
import { openStore } from "../src/store/open-store.js";
import type { StoreEvent } from "../src/store/store-event.js";

/** A read call's four events, as the checkpoint writes them. */
function readCall(sessionId: string, callId: string, at: number): StoreEvent[] {
  const base = { callId, tool: "get_order", sessionId };
  return [
    {
      ...base,
      type: "requested",
      at,
      principal: "agent",
      rawArguments: '{"id":"SU-1"}',
      rawBytes: 13,
    },
    {
      ...base,
      type: "decided",
      at,
      decision: "allow",
      rule: "reads",
      layer: "project",
      reason: undefined,
      explanation: undefined,
      args: { id: "SU-1" },
    },
    { ...base, type: "started", at, writes: false, timeoutMs: 30_000 },
    {
      ...base,
      type: "finished",
      at,
      status: "ok",
      reason: undefined,
      message: "get_order succeeded.",
      durationMs: 0.2,
      outputBytes: 20,
      output: '{"status":"shipped"}',
    },
  ];
}

/** What one verify run measured, in the child process that ran it. */
interface VerifyRun {
  readonly events: number;
  readonly attestations: number;
  readonly verdict: string;
  readonly seconds: number;
  /** Resident memory with the store open, before verify (MB). */
  readonly baseMb: number;
  /** The process's peak resident memory (MB), verify included. */
  readonly peakMb: number;
}

/** Build a signed SQLite store of one session of `events` events, attestationed every 4,000. */
async function buildStore(dir: string, events: number): Promise<number> {
  const signer = await createAuditSigner({
    keyFile: join(dir, "key.pem"),
    digests: join(dir, "digests.jsonl"),
    env: {},
  });
  const store = await openStore(`sqlite:${join(dir, "docket.db")}`, {
    signer,
    attestationIntervalMs: 60_000,
  });
  const session = await store.createSession({ principal: "agent", configHash: "bench" });
  const built = performance.now();
  for (let call = 0; call * 4 < events; call += 1000) {
    const batch: StoreEvent[] = [];
    for (let i = call; i < call + 1000 && i * 4 < events; i += 1) {
      batch.push(...readCall(session.id, `c${i}`, 1_700_000_000_000 + i));
    }
    await store.emitMany(batch);
    await store.attest();
  }
  await store.close();
  await signer.close();
  return (performance.now() - built) / 1000;
}

/** Verify the store in `dir` (in this process: the bench's child) and print what it measured. */
async function verifyHere(dir: string): Promise<void> {
  const reader = await openStore(`sqlite:${join(dir, "docket.db")}`, { readOnly: true });
  const digests = await openDigestLog(join(dir, "digests.jsonl"));
  const baseMb = process.memoryUsage().rss / 1024 / 1024;
  const started = performance.now();
  const report = await verifyStoreTrail(reader, {
    publicKey: readPublicKey(publicKeyFileOf(join(dir, "key.pem"))).key,
    digests,
  });
  const seconds = (performance.now() - started) / 1000;
  const peakMb = process.resourceUsage().maxRSS / 1024;
  await reader.close();
  const run: VerifyRun = {
    events: report.events,
    attestations: report.attestations,
    verdict: report.verdict,
    seconds,
    baseMb,
    peakMb,
  };
  process.stdout.write(`${JSON.stringify(run)}\n`);
}

/**
 * V8 flags that pin the heap: a 48 MB old generation and 2 MB semi-spaces. V8 otherwise grows its
 * heap with the rate of allocation, not with what is kept, so the peak resident memory of a free
 * run says little about what verify holds; under these caps a verify that kept memory per event
 * or per call fails (the verify before issue 33's streaming ran out of memory at 1,000,000).
 */
const CAPPED = ["--max-old-space-size=48", "--max-semi-space-size=2"];

/** Run `verifyHere` in a fresh Node process: its peak memory is verify's alone. */
function verifyInChild(dir: string, flags: readonly string[]): VerifyRun {
  const child = spawnSync(
    process.execPath,
    [...flags, ...process.execArgv, fileURLToPath(import.meta.url)],
    { env: { ...process.env, DOCKET_BENCH_VERIFY_STORE: dir }, encoding: "utf8" },
  );
  const line = child.stdout.trim().split("\n").at(-1) ?? "";
  if (child.status !== 0 || !line.startsWith("{")) {
    throw new Error(`the verify child failed (exit ${child.status}): ${child.stderr.slice(-2000)}`);
  }
  return JSON.parse(line) as VerifyRun;
}

/**
 * `docket audit verify` of one session (the worst case: verify's memory used to grow with the
 * largest session), signed every 4,000 events, on SQLite, at two sizes: a tenth of EVENTS and
 * EVENTS. Each verify runs in a fresh process, so its peak resident memory is its own: once with
 * Node's defaults (the time, and the memory a user sees), once with the heap capped (`CAPPED`):
 * flat memory shows as the same capped peak at both sizes.
 *
 *   npm run bench verify        (DOCKET_BENCH_VERIFY_EVENTS=1000000 by default)
 *
 * @example
 * ```ts
 * await benchVerify(1_000_000);
 * ```
 */
export async function benchVerify(
  events = Number(process.env.DOCKET_BENCH_VERIFY_EVENTS ?? 1_000_000),
): Promise<void> {
  const mb = (value: number) => value.toFixed(0);
  for (const size of [Math.round(events / 10), events]) {
    const dir = mkdtempSync(join(tmpdir(), "docket-bench-verify-"));
    try {
      const buildSeconds = await buildStore(dir, size);
      const free = verifyInChild(dir, []);
      const capped = verifyInChild(dir, CAPPED);
      console.log(
        `audit verify, one session: ${free.events.toLocaleString("en")} events, ${free.attestations} attestations, verdict ${free.verdict}: ${free.seconds.toFixed(1)} s (${Math.round(free.events / free.seconds).toLocaleString("en")} events/s); peak resident memory ${mb(free.peakMb)} MB (${mb(free.baseMb)} MB with the store open); heap capped (${CAPPED.join(" ")}): ${capped.verdict} in ${capped.seconds.toFixed(1)} s, peak ${mb(capped.peakMb)} MB; store built in ${buildSeconds.toFixed(1)} s; load average ${loadavg()[0]?.toFixed(1)}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const store = process.env.DOCKET_BENCH_VERIFY_STORE;
  await (store ? verifyHere(store) : benchVerify());
}
