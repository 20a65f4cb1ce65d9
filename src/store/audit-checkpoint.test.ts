import * as crypto from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDigestLines } from "../audit/digest-log.js";
import { GENESIS_HASH } from "./audit-chain.js";
import { type CheckpointFields, parseCheckpoint, signCheckpoint } from "./audit-checkpoint.js";

const { privateKey, publicKey } = crypto.generateKeyPairSync("ed25519");
const signer = {
  keyId: "k",
  sign: (body: string) => crypto.sign(null, Buffer.from(body), privateKey).toString("base64"),
  deliver: () => undefined,
};
const fields: CheckpointFields = {
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

describe("signed checkpoints", () => {
  it("read back from their signed text exactly", () => {
    const checkpoint = signCheckpoint(fields, signer);
    expect(parseCheckpoint(checkpoint.body, checkpoint.signature)).toEqual(checkpoint);
    expect(verifies(checkpoint.body, checkpoint.signature)).toBe(true);
  });

  it("no longer verify once any character of the signed text changes", () => {
    const checkpoint = signCheckpoint(fields, signer);
    fc.assert(
      fc.property(
        fc.nat({ max: checkpoint.body.length - 1 }),
        fc.integer({ min: 32, max: 126 }),
        (at, code) => {
          const char = String.fromCharCode(code);
          fc.pre(checkpoint.body[at] !== char);
          const edited = checkpoint.body.slice(0, at) + char + checkpoint.body.slice(at + 1);
          return !verifies(edited, checkpoint.signature);
        },
      ),
    );
  });

  it("digest lines of any shape parse without throwing, keeping only checkpoints", () => {
    const good = signCheckpoint(fields, signer);
    const line = JSON.stringify({ body: good.body, signature: good.signature });
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.json())), (lines) => {
        const parsed = parseDigestLines([...lines, line]);
        return parsed.checkpoints.some((c) => c.hash === good.hash);
      }),
    );
    expect(parseDigestLines(["{", '{"body":"{}","signature":""}', line], "other")).toEqual({
      checkpoints: [],
      unreadable: [
        { line: 1, reason: "not JSON" },
        { line: 2, reason: "not a checkpoint" },
      ],
    });
  });
});
