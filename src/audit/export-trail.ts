import { DocketError } from "../errors/docket-error.js";
import { parseJson } from "../shared/parse-json.js";
import type { MessageRow } from "../store/attestation-plan.js";
import type { AuditAttestation } from "../store/audit-attestation.js";
import type { ChainRow } from "../store/audit-chain.js";
import type { ChainHeadRecord } from "../store/audit-record.js";
import type { Store } from "../store/store.js";
import { parseDigestLines } from "./digest-log.js";
import type { TrailSource } from "./verify-trail.js";

/** The first line of an export. */
export interface ExportHeader {
  readonly kind: "docket-audit-export";
  readonly version: 1;
  readonly storeId: string | undefined;
  readonly exportedAt: number;
  /** The public key of the exporting docket: informative only; an auditor verifies with their own copy. */
  readonly publicKey: string | undefined;
  readonly sessions: readonly string[];
}

const PAGE = 5000;

/**
 * Write whole sessions as JSON lines: a header, then per session its chain head, every event as
 * stored, every transcript message and every attestation (signed text and signature). `since`
 * picks the sessions with an event at or after it, each exported whole (a chain is only
 * checkable from its first event).
 *
 * @example
 * ```ts
 * import { createWriteStream } from "node:fs";
 * declare const store: import("../store/store.js").Store;
 * declare const pem: string; // the audit public key, PEM
 * const out = createWriteStream("trail.jsonl");
 * await exportTrail(store, { sessionId: "ses_1", publicKey: pem }, (line) => {
 *   out.write(line);
 * });
 * ```
 */
export async function exportTrail(
  store: Store,
  {
    sessionId,
    since,
    publicKey,
    now = Date.now(),
  }: { sessionId?: string; since?: number; publicKey?: string | undefined; now?: number },
  write: (line: string) => void | Promise<void>,
): Promise<{ sessions: number; events: number }> {
  const heads = await store.listChainHeads(sessionId);
  const attestationSessions = (await store.listAttestations(sessionId)).map((c) => c.sessionId);
  let sessions = [...new Set([...heads.map((h) => h.sessionId), ...attestationSessions])].sort();
  if (sessionId !== undefined && !sessions.includes(sessionId)) {
    throw new DocketError("unknown_session", `There is no audit trail for session ${sessionId}.`);
  }
  if (since !== undefined) {
    const recent: string[] = [];
    for (const id of sessions) {
      if ((await store.listEvents({ sessionId: id, since, limit: 1 })).length > 0) recent.push(id);
    }
    sessions = recent;
  }
  const header: ExportHeader = {
    kind: "docket-audit-export",
    version: 1,
    storeId: await store.storeId(),
    exportedAt: now,
    publicKey,
    sessions,
  };
  await write(`${JSON.stringify(header)}\n`);
  let events = 0;
  for (const id of sessions) {
    const head = heads.find((h) => h.sessionId === id);
    if (head) await write(`${JSON.stringify({ kind: "head", ...head })}\n`);
    for (let after = 0; ; ) {
      const rows = await store.listChainRows(id, { afterSeq: after, limit: PAGE });
      for (const row of rows) await write(`${JSON.stringify({ kind: "event", row })}\n`);
      events += rows.length;
      const last = rows.at(-1);
      if (!last) break;
      after = last.seq;
    }
    for (const message of await store.listMessageRows(id)) {
      await write(`${JSON.stringify({ kind: "message", sessionId: id, ...message })}\n`);
    }
    for (const attestation of await store.listAttestations(id)) {
      await write(
        `${JSON.stringify({ kind: "attestation", body: attestation.body, signature: attestation.signature })}\n`,
      );
    }
  }
  return { sessions: sessions.length, events };
}

/**
 * Read an export back as a trail to verify, without the store. A line that is not what an
 * export holds stops with its number: an auditor never verifies half a file.
 *
 * @example
 * ```ts
 * const { source, header } = readExport(readFileSync("trail.jsonl", "utf8"), "trail.jsonl");
 * import { createPublicKey } from "node:crypto";
 * import { readFileSync } from "node:fs";
 * import { verifyTrail } from "./verify-trail.js";
 * const publicKey = header.publicKey ? createPublicKey(header.publicKey) : undefined;
 * const report = await verifyTrail(source, { publicKey });
 * ```
 */
export function readExport(
  text: string,
  file: string,
): { header: ExportHeader; source: TrailSource } {
  const lines = text.split("\n");
  const bad = (index: number, why: string): DocketError =>
    new DocketError("audit_export_invalid", `${file}:${index + 1}: ${why}`);
  let header: ExportHeader | undefined;
  const heads: ChainHeadRecord[] = [];
  const rows = new Map<string, ChainRow[]>();
  const messages = new Map<string, MessageRow[]>();
  const attestations: AuditAttestation[] = [];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let value: Record<string, unknown>;
    try {
      value = parseJson(line) as Record<string, unknown>;
    } catch {
      throw bad(index, "not JSON");
    }
    if (index === 0) {
      if (value.kind !== "docket-audit-export" || value.version !== 1) {
        throw bad(index, "not a docket audit export (no header line)");
      }
      header = value as unknown as ExportHeader;
      continue;
    }
    switch (value.kind) {
      case "head":
        heads.push({
          sessionId: String(value.sessionId),
          seq: Number(value.seq),
          hash: String(value.hash),
        });
        break;
      case "event": {
        const row = value.row as ChainRow | undefined;
        if (!row || typeof row.sessionId !== "string" || typeof row.event !== "string") {
          throw bad(index, "an event line without its row");
        }
        rows.set(row.sessionId, [...(rows.get(row.sessionId) ?? []), row]);
        break;
      }
      case "message": {
        const { kind: _kind, sessionId, ...message } = value;
        const id = String(sessionId);
        messages.set(id, [...(messages.get(id) ?? []), message as unknown as MessageRow]);
        break;
      }
      // legacy-name: exports written before ADR 0065 call these lines "checkpoint"; still read.
      case "checkpoint": // legacy-name
      case "attestation": {
        const parsed = parseDigestLines([line]);
        const attestation = parsed.attestations[0];
        if (!attestation) throw bad(index, "an attestation line that is not an attestation");
        attestations.push(attestation);
        break;
      }
      default:
        throw bad(index, `unknown line kind ${JSON.stringify(value.kind)}`);
    }
  }
  if (!header) throw bad(0, "empty file");
  const sessions = new Set(header.sessions);
  return {
    header,
    source: {
      storeId: header.storeId,
      heads,
      attestations: attestations.filter(
        (c) => c.storeId === header?.storeId && sessions.has(c.sessionId),
      ),
      sessionIds: [...rows.keys(), ...messages.keys()],
      // One page: the lines as they are in the file, so that reordered lines are seen as such.
      async chainRows(sessionId, afterSeq) {
        return afterSeq === 0 ? (rows.get(sessionId) ?? []) : [];
      },
      async messages(sessionId) {
        return messages.get(sessionId) ?? [];
      },
    },
  };
}
