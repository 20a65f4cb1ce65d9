import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { DocketError } from "../errors/docket-error.js";
import { parseJson } from "../shared/parse-json.js";
import { type AuditAttestation, parseAttestation } from "../store/audit-attestation.js";
import { parseStoreUrl } from "../store/store-url.js";

/** What a digest log holds: readable attestations, and the lines that were not. */
export interface DigestContents {
  readonly attestations: readonly AuditAttestation[];
  readonly unreadable: readonly { readonly line: number; readonly reason: string }[];
}

/**
 * The copy of every attestation kept outside the store: a JSON-lines file (default, beside the
 * key) or a table in a separate PostgreSQL database. Append-only by use; what protects it is
 * where it lives (docs/audit.md).
 *
 * @example
 * ```ts
 * const log = await openDigestLog("/home/me/.config/docket/audit-digests.jsonl");
 * declare const attestations: readonly import("../store/audit-attestation.js").AuditAttestation[];
 * await log.deliver(attestations);
 * ```
 */
export interface DigestLog {
  readonly location: string;
  deliver(attestations: readonly AuditAttestation[]): void | Promise<void>;
  read(storeId?: string): Promise<DigestContents>;
  close(): Promise<void>;
}

/**
 * Open a digest log by path or `postgres://` URL. A file is created (mode 0600) on the first
 * delivery; PostgreSQL gets its table on open.
 *
 * @example
 * ```ts
 * const log = await openDigestLog("postgres://audit@vault.internal/digests");
 * ```
 */
export async function openDigestLog(location: string): Promise<DigestLog> {
  if (/^postgres(ql)?:\/\//.test(location)) return openPostgresDigestLog(location);
  return fileDigestLog(location);
}

function line(attestation: AuditAttestation): string {
  return `${JSON.stringify({ body: attestation.body, signature: attestation.signature })}\n`;
}

/** How every digest line starts (a body is a JSON string: its own quotes are escaped). */
const LINE_START = '{"body":';

/**
 * Whether the file ends a line. A delivery is one write, but a write can be cut short: the kernel
 * copies it a page at a time and stops between pages for a SIGKILL. What is left has no newline.
 */
function endsWithNewline(fd: number): boolean {
  const { size } = fstatSync(fd);
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  return readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === 0x0a;
}

function fileDigestLog(file: string): DigestLog {
  let fd: number | undefined;
  let inode = -1;
  // Kept open between deliveries (an open and a close cost more than the write), but reopened
  // when the file at the path is no longer the one open: rotated, or deleted.
  const open = (): number => {
    const current = statOrUndefined(file);
    if (fd !== undefined && current?.ino === inode) return fd;
    if (fd !== undefined) closeSync(fd);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    fd = openSync(file, "a+", 0o600);
    inode = fstatSync(fd).ino;
    return fd;
  };
  return {
    location: file,
    deliver(attestations) {
      // One write of whole lines to an O_APPEND file: processes sharing the log never interleave.
      // After a delivery a crash cut short, the next starts on a line of its own.
      const fd = open();
      writeSync(fd, (endsWithNewline(fd) ? "" : "\n") + attestations.map(line).join(""));
    },
    async read(storeId) {
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (error) {
        if ((error as { code?: string }).code === "ENOENT")
          return { attestations: [], unreadable: [] };
        throw new DocketError("digest_log_unreadable", `${file}: cannot read the digest log.`, {
          cause: error,
        });
      }
      // What follows the last newline is a line still being written (a delivery is one
      // append): read while a signer writes, it is not an unreadable line.
      const lines = text.split("\n");
      lines.pop();
      return parseDigestLines(lines, storeId);
    },
    async close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

function statOrUndefined(file: string): { ino: number } | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Parse digest lines (`{"body": …, "signature": …}`), keeping one store's attestations.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * const text = readFileSync("/home/me/.config/docket/audit-digests.jsonl", "utf8");
 * const storeId = "store-1";
 * parseDigestLines(text.split("\n"), storeId).attestations;
 * ```
 */
export function parseDigestLines(lines: readonly string[], storeId?: string): DigestContents {
  const attestations: AuditAttestation[] = [];
  const unreadable: { line: number; reason: string }[] = [];
  lines.forEach((text, index) => {
    if (text.trim() === "") return;
    const value = digestJson(text);
    if (value === "cut") return;
    if (value === undefined) {
      unreadable.push({ line: index + 1, reason: "not JSON" });
      return;
    }
    const attestation =
      typeof value?.body === "string" && typeof value.signature === "string"
        ? parseAttestation(value.body, value.signature)
        : undefined;
    if (!attestation) {
      unreadable.push({ line: index + 1, reason: "not an attestation" });
      return;
    }
    if (storeId === undefined || attestation.storeId === storeId) attestations.push(attestation);
  });
  return { attestations, unreadable };
}

/**
 * One line's JSON. A delivery cut short by a crash (see `endsWithNewline`) left the start of a
 * line: alone on its line it is `cut`, not an unreadable line, and glued to the line delivered
 * after it (a log written before the newline was added) that line is read from its own start.
 * Either way it hides nothing: the attestation it held is in the store, and verify still wants
 * a whole copy of it in the log (recovery delivers it again), or a process that owes it.
 */
function digestJson(text: string): { body?: unknown; signature?: unknown } | "cut" | undefined {
  try {
    return parseJson(text) as { body?: unknown; signature?: unknown };
  } catch {
    if (!text.startsWith(LINE_START)) return undefined;
    const next = text.lastIndexOf(LINE_START);
    if (next === 0) return "cut";
    try {
      return parseJson(text.slice(next)) as { body?: unknown; signature?: unknown };
    } catch {
      return undefined;
    }
  }
}

async function openPostgresDigestLog(url: string): Promise<DigestLog> {
  const { loadPg } = await import("../store/postgres/load-pg.js");
  const { boundedPool } = await import("../store/postgres/bounded-client.js");
  // The store URL's parameters and bounds: a digest database gone silent fails a delivery (and
  // so the next write) within them instead of holding it.
  const target = parseStoreUrl(url);
  if (target.engine !== "postgres") {
    throw new DocketError("digest_log_unreadable", "The digest log's URL is no PostgreSQL URL.");
  }
  const pool = boundedPool(
    await loadPg(),
    { connectionString: target.connectionString, max: 2 },
    target,
  );
  // A restart of the digest database ends idle connections: pg emits 'error' on them, and an
  // unheard 'error' ends the process. The next delivery reconnects, or fails the next write.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
  });
  const location = url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
  try {
    await pool.query(`CREATE TABLE IF NOT EXISTS docket_audit_digests (
  store_id text NOT NULL,
  session_id text NOT NULL,
  n bigint NOT NULL,
  body text NOT NULL,
  signature text NOT NULL,
  PRIMARY KEY (store_id, session_id, n)
)`);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new DocketError("digest_log_unreadable", `${location}: cannot open the digest log.`, {
      cause: error,
    });
  }
  return {
    location,
    async deliver(attestations) {
      await pool.query(
        `INSERT INTO docket_audit_digests (store_id, session_id, n, body, signature)
         SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[])
         ON CONFLICT DO NOTHING`,
        [
          attestations.map((c) => c.storeId),
          attestations.map((c) => c.sessionId),
          attestations.map((c) => c.n),
          attestations.map((c) => c.body),
          attestations.map((c) => c.signature),
        ],
      );
    },
    async read(storeId) {
      const result = await pool.query(
        "SELECT body, signature FROM docket_audit_digests WHERE ($1::text IS NULL OR store_id = $1) ORDER BY store_id, session_id, n",
        [storeId ?? null],
      );
      return parseDigestLines(
        (result.rows as { body: string; signature: string }[]).map((row) => JSON.stringify(row)),
        storeId,
      );
    },
    async close() {
      await pool.end();
    },
  };
}
