import * as crypto from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDigestLines } from "../audit/digest-log.js";
import { type AttestationFields, parseAttestation, signAttestation } from "./audit-attestation.js";
import { GENESIS_HASH } from "./audit-chain.js";

const { privateKey, publicKey } = crypto.generateKeyPairSync("ed25519");
const signer = {
  keyId: "k",
  sign: (body: string) => crypto.sign(null, Buffer.from(body), privateKey).toString("base64"),
  deliver: () => undefined,
};
const fields: AttestationFields = {
  storeId: "s",
  sessionId: "ses_1",
  n: 1,
  seq: 8,
  headHash: "a".repeat(64),
  messagesSeq: 3,
  messagesHash: "b".repeat(64),
  at: 1_700_000_000_000,
  prev: GENESIS_HASH,
  keyId: "k",
};
const verifies = (body: string, signature: string) =>
  crypto.verify(null, Buffer.from(body), publicKey, Buffer.from(signature, "base64"));

describe("signed attestations", () => {
  it("read back from their signed text exactly", () => {
    const attestation = signAttestation(fields, signer);
    expect(parseAttestation(attestation.body, attestation.signature)).toEqual(attestation);
    expect(verifies(attestation.body, attestation.signature)).toBe(true);
  });

  it("no longer verify once any character of the signed text changes", () => {
    const attestation = signAttestation(fields, signer);
    fc.assert(
      fc.property(
        fc.nat({ max: attestation.body.length - 1 }),
        fc.integer({ min: 32, max: 126 }),
        (at, code) => {
          const char = String.fromCharCode(code);
          fc.pre(attestation.body[at] !== char);
          const edited = attestation.body.slice(0, at) + char + attestation.body.slice(at + 1);
          return !verifies(edited, attestation.signature);
        },
      ),
    );
  });

  it("digest lines of any shape parse without throwing, keeping only attestations", () => {
    const good = signAttestation(fields, signer);
    const line = JSON.stringify({ body: good.body, signature: good.signature });
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.json())), (lines) => {
        const parsed = parseDigestLines([...lines, line]);
        return parsed.attestations.some((c) => c.hash === good.hash);
      }),
    );
    expect(parseDigestLines(["{", '{"body":"{}","signature":""}', line], "other")).toEqual({
      attestations: [],
      unreadable: [
        { line: 1, reason: "not JSON" },
        { line: 2, reason: "not an attestation" },
      ],
    });
  });
});
