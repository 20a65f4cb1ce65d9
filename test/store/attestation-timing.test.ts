import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AttestationSigner, AuditAttestation } from "../../src/store/audit-attestation.js";
import { openStore } from "../../src/store/open-store.js";
import { callEvents } from "./support/call-events.js";
import { freshSigner } from "./support/signed-trail.js";

const url = () => `sqlite:${join(mkdtempSync(join(tmpdir(), "docket-cp-")), "docket.db")}`;

describe("when a store signs", () => {
  it("never per event: a batch's attestation rides in the commit after its end", async () => {
    const { signer } = await freshSigner();
    let signatures = 0;
    const counting: AttestationSigner = {
      ...signer,
      sign: (body) => {
        signatures += 1;
        return signer.sign(body);
      },
      deliver: (c) => signer.deliver(c),
    };
    const store = await openStore(url(), { signer: counting });
    const session = await store.createSession({ principal: "agent", configHash: "" });
    // A session is signed from its creation: a crash before its first batch leaves it known.
    expect(signatures).toBe(1);
    signatures = 0;
    for (let i = 0; i < 25; i += 1) {
      for (const event of callEvents({ sessionId: session.id, callId: `c${i}`, writes: false })) {
        await store.emit(event, { defer: true });
      }
    }
    await store.flush();
    expect(signatures).toBe(0);
    await store.queueBatch(session.id, { role: "assistant", content: "a" }, [
      { role: "tool", content: "r" },
    ]);
    await store.flush();
    expect(signatures).toBe(1);
    const [created, attestation] = await store.listAttestations(session.id);
    expect(created).toMatchObject({ n: 1, seq: 0, messagesSeq: 0 });
    expect(attestation).toMatchObject({ n: 2, seq: 100, messagesSeq: 2 });
    const delivered = (await signer.digests.read()).attestations;
    expect(delivered.map((c: AuditAttestation) => c.hash)).toEqual([
      created?.hash,
      attestation?.hash,
    ]);
    // A batch that ends within 200 ms of the last attestation is signed at most 200 ms later.
    await store.emitMany(callEvents({ sessionId: session.id, callId: "late", writes: false }));
    await store.queueBatch(session.id, { role: "assistant", content: "b" }, []);
    await store.flush();
    expect(signatures).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(signatures).toBe(2);
    expect((await store.listAttestations(session.id)).at(-1)).toMatchObject({
      n: 3,
      seq: 104,
      messagesSeq: 3,
    });
    await store.close();
    expect(signatures).toBe(2);
    await signer.close();
  });

  it("at the latest after the interval during a long batch, and on close", async () => {
    const { signer } = await freshSigner();
    const store = await openStore(url(), { signer, attestationIntervalMs: 30 });
    await store.emitMany(callEvents({ sessionId: "s", callId: "c1" }));
    expect(await store.listAttestations()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await store.listAttestations()).map((c) => c.seq)).toEqual([4]);
    await store.emitMany(callEvents({ sessionId: "s", callId: "c2" }));
    const location = store.location;
    await store.close();
    const reader = await openStore(location, { readOnly: true });
    // The last attestation covers the whole chain (8 events).
    expect((await reader.listAttestations()).map((c) => [c.n, c.seq])).toEqual([
      [1, 4],
      [2, 8],
    ]);
    await reader.close();
    await signer.close();
  });

  it("within the least gap after a dispatch that ends no batch (the gateway, hooks, the approvals API)", async () => {
    const { signer } = await freshSigner();
    const store = await openStore(url(), { signer });
    const session = await store.createSession({ principal: "agent", configHash: "" });
    for (const event of callEvents({ sessionId: session.id, callId: "c1", writes: false })) {
      await store.emit(event, { defer: true });
    }
    // The checkpoint flushes the store at the end of every dispatch.
    await store.flush();
    expect((await store.listAttestations(session.id)).map((c) => c.seq)).toEqual([0]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await store.listAttestations(session.id)).map((c) => c.seq)).toEqual([0, 4]);
    await store.close();
    await signer.close();
  });

  it("fails the next write when an attestation cannot reach the digest log (fail closed)", async () => {
    const { signer } = await freshSigner();
    let broken = true;
    const flaky: AttestationSigner = {
      keyId: signer.keyId,
      sign: (body) => signer.sign(body),
      deliver: (c) => {
        if (broken) throw new Error("digest log unreachable");
        return signer.deliver(c);
      },
    };
    const store = await openStore(url(), { signer: flaky });
    await store.emitMany(callEvents({ sessionId: "s", callId: "c1" }));
    await expect(store.attest()).rejects.toThrow("digest log unreachable");
    await expect(store.emitMany(callEvents({ sessionId: "s", callId: "c2" }))).rejects.toThrow(
      "digest log unreachable",
    );
    broken = false;
    // The refused write's events stayed queued, but its intent when the failure came before its
    // commit: the caller was told it failed, so the call never ran and is not recorded as
    // started (7). When the error surfaced after the commit, all four are there (8).
    await store.flush();
    await store.close();
    const log = (await signer.digests.read()).attestations.map((c) => [c.n, c.seq]);
    expect(log[0]).toEqual([1, 4]);
    expect(log.length).toBe(2);
    expect([7, 8]).toContain(log[1]?.[1]);
    await signer.close();
  });
});
