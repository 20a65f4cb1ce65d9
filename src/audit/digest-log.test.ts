import * as crypto from "node:crypto";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { signAttestation } from "../store/audit-attestation.js";
import { GENESIS_HASH } from "../store/audit-chain.js";
import { openDigestLog } from "./digest-log.js";

const dir = mkdtempSync(join(tmpdir(), "docket-digest-log-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const { privateKey } = crypto.generateKeyPairSync("ed25519");
const signer = {
  keyId: "k",
  sign: (body: string) => crypto.sign(null, Buffer.from(body), privateKey).toString("base64"),
  deliver: () => undefined,
};
const attestation = (n: number) =>
  signAttestation(
    {
      storeId: "s",
      sessionId: "ses_1",
      n,
      seq: n * 4,
      headHash: "a".repeat(64),
      messagesSeq: 0,
      messagesHash: GENESIS_HASH,
      at: 1_700_000_000_000 + n,
      prev: GENESIS_HASH,
      keyId: "k",
    },
    signer,
  );

describe("a digest log file", () => {
  it("read while a delivery is being written: the unfinished line is not yet a line", async () => {
    const file = join(dir, "partial.jsonl");
    const log = await openDigestLog(file);
    try {
      await log.deliver([attestation(1)]);
      const second = attestation(2);
      const text = `${JSON.stringify({ body: second.body, signature: second.signature })}\n`;
      const cut = Math.floor(text.length / 2);
      appendFileSync(file, text.slice(0, cut));
      const during = await log.read("s");
      expect(during.unreadable).toEqual([]);
      expect(during.attestations.map((c) => c.n)).toEqual([1]);
      appendFileSync(file, text.slice(cut));
      const after = await log.read("s");
      expect(after.unreadable).toEqual([]);
      expect(after.attestations.map((c) => c.n)).toEqual([1, 2]);
      // A broken line with lines after it is not one being written: it is reported.
      appendFileSync(file, "{not json\n");
      await log.deliver([attestation(3)]);
      const broken = await log.read("s");
      expect(broken.unreadable).toEqual([{ line: 3, reason: "not JSON" }]);
      expect(broken.attestations.map((c) => c.n)).toEqual([1, 2, 3]);
    } finally {
      await log.close();
    }
  });
});
