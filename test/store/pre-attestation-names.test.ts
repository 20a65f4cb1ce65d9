import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyStoreTrail } from "../../src/audit/verify-store-trail.js";
import type { AuditCheckpoint, CheckpointEvent, CheckpointSigner } from "../../src/index.js";
import { openStore } from "../../src/store/open-store.js";
import { callEvents } from "./support/call-events.js";
import { freshSigner } from "./support/signed-trail.js";

// ADR 0065: library code written against the names before attestations keeps working for one
// release. The rename script leaves this file alone (*pre-attestation*): it must keep them.
const url = () => `sqlite:${join(mkdtempSync(join(tmpdir(), "docket-old-names-")), "docket.db")}`;

describe("the deprecated names of attestations, on a real signed SQLite store", () => {
  it("store.checkpoint() signs what moved, as attest() does, under the old types", async () => {
    const { signer, publicKey } = await freshSigner();
    const oldSigner: CheckpointSigner = signer;
    const store = await openStore(url(), { signer: oldSigner, checkpointIntervalMs: 600_000 });
    const events: CheckpointEvent[] = callEvents({ sessionId: "s", callId: "c1" }).filter(
      (event): event is CheckpointEvent => event.type !== "interrupted" && event.type !== "system",
    );
    await store.emitMany(events);
    const signed: AuditCheckpoint[] = await store.checkpoint();
    expect(signed.map((a) => [a.sessionId, a.n, a.seq])).toEqual([["s", 1, 4]]);
    expect(await store.attest()).toEqual([]);
    expect(await store.listAttestations("s")).toEqual(signed);
    const report = await verifyStoreTrail(store, { publicKey, digests: signer.digests });
    expect(report).toMatchObject({ ok: true, attestations: 1, checkpoints: 1 });
    await store.close();
    await signer.close();
  });

  it("checkpointIntervalMs still sets how long a long batch stays unsigned", async () => {
    const { signer } = await freshSigner();
    const store = await openStore(url(), { signer, checkpointIntervalMs: 30 });
    await store.emitMany(callEvents({ sessionId: "s", callId: "c1" }));
    expect(await store.listAttestations()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await store.listAttestations()).map((a) => a.seq)).toEqual([4]);
    await store.close();
    await signer.close();
  });

  it("attestationIntervalMs wins over the old name when both are given", async () => {
    const { signer } = await freshSigner();
    const store = await openStore(url(), {
      signer,
      attestationIntervalMs: 600_000,
      checkpointIntervalMs: 30,
    });
    await store.emitMany(callEvents({ sessionId: "s", callId: "c1" }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await store.listAttestations()).toEqual([]);
    await store.close();
    await signer.close();
  });
});
