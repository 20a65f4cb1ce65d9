import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readPublicKey } from "../../src/audit/audit-key.js";
import { openDigestLog } from "../../src/audit/digest-log.js";
import { verifyStoreTrail } from "../../src/audit/verify-store-trail.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { callEvents } from "./support/call-events.js";
import { faultDirs, faultEngines } from "./support/fault-engines.js";
import { openSignedAt } from "./support/signed-trail.js";

// A signer commits an attestation, then copies it to the digest log. A verify reading the same
// store while that happens reads the store's attestations and the log at different moments; in
// CI (issue 38) an attestation committed between the two reads was reported as deleted.
const dirs = faultDirs("docket-verify-live-");
afterAll(dirs.cleanup);

/** `reader`, with `during` run once, before or after verify's first read of the attestations. */
function withSigningDuring(reader: Store, when: "before" | "after", during: () => Promise<void>) {
  let done = false;
  return new Proxy(reader, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (name !== "listAttestations" || typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const first = !done;
        done = true;
        if (first && when === "before") await during();
        const read = await value.apply(target, args);
        if (first && when === "after") await during();
        return read;
      };
    },
  });
}

describe.each(faultEngines)("verify while a session is signed, on $name", (engine) => {
  it.skipIf(engine.skip).each(["before", "after"] as const)(
    "an attestation committed and copied %s verify reads the store's is neither deleted nor lost",
    async (when) => {
      const dir = dirs.fresh();
      const url = engine.url(dir);
      const writer = await openSignedAt(url, dir);
      const reader = await openStore(url, { readOnly: true });
      const digests = await openDigestLog(join(dir, "audit-digests.jsonl"));
      try {
        const { id } = await writer.store.createSession({ principal: "agent", configHash: "x" });
        await writer.store.emitMany(callEvents({ sessionId: id, callId: "call_1" }));
        await writer.store.attest();
        // Messages only: the chain's head does not move, so nothing else tells verify it is live.
        const signMessage = async () => {
          await writer.store.appendMessage(id, { role: "user", content: "and order 8?" });
          expect((await writer.store.attest()).length).toBe(1);
        };
        const publicKey = readPublicKey(join(dir, "audit-key.pub.pem")).key;
        const report = await verifyStoreTrail(withSigningDuring(reader, when, signMessage), {
          publicKey,
          digests,
        });
        expect(report.problems).toEqual([]);
        // Only what verify read before the message was signed may be unsigned: that message.
        expect(report.unsigned.filter((p) => p.kind !== "unsigned_messages")).toEqual([]);
        expect(report.attestations).toBeGreaterThanOrEqual(1);
        // Read again once still, the whole trail is verified.
        const after = await verifyStoreTrail(reader, { publicKey, digests });
        expect(after.verdict).toBe("verified");
        expect(after.attestations).toBe((await reader.listAttestations(id)).length);
      } finally {
        await digests.close();
        await reader.close();
        await writer.close();
      }
    },
    60_000,
  );
});
