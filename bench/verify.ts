import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { readPublicKey } from "../src/audit/audit-key.js";
import { createAuditSigner } from "../src/audit/create-audit-signer.js";
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

/**
 * `docket audit verify` of one session of EVENTS events (the worst case: verify's memory used
 * to grow with the largest session), signed every 4,000 events, on SQLite: wall time and peak
 * resident memory during the verify, beside the load average.
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
  const dir = mkdtempSync(join(tmpdir(), "docket-bench-verify-"));
  try {
    const signer = await createAuditSigner({
      keyFile: join(dir, "key.pem"),
      digests: join(dir, "digests.jsonl"),
      env: {},
    });
    const url = `sqlite:${join(dir, "docket.db")}`;
    const store = await openStore(url, { signer, checkpointIntervalMs: 60_000 });
    const session = await store.createSession({ principal: "agent", configHash: "bench" });
    const built = performance.now();
    for (let call = 0; call * 4 < events; call += 1000) {
      const batch: StoreEvent[] = [];
      for (let i = call; i < call + 1000 && i * 4 < events; i += 1) {
        batch.push(...readCall(session.id, `c${i}`, 1_700_000_000_000 + i));
      }
      await store.emitMany(batch);
      await store.checkpoint();
    }
    await store.close();
    const buildSeconds = (performance.now() - built) / 1000;

    const reader = await openStore(url, { readOnly: true });
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const started = performance.now();
    const report = await verifyStoreTrail(reader, {
      publicKey: readPublicKey(signer.paths.publicKeyFile).key,
      digests: signer.digests,
    });
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    await reader.close();
    await signer.close();
    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
    console.log(
      `audit verify, one session: ${report.events.toLocaleString("en")} events, ${report.checkpoints} checkpoints, verdict ${report.verdict}: ${seconds.toFixed(1)} s (${Math.round(report.events / seconds).toLocaleString("en")} events/s); resident memory ${mb(before)} MB before, ${mb(peak)} MB at peak (+${mb(peak - before)} MB); store built in ${buildSeconds.toFixed(1)} s; load average ${loadavg()[0]?.toFixed(1)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchVerify();
