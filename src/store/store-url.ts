import { DocketError } from "../errors/docket-error.js";
import { maskSecrets } from "../shared/mask-secrets.js";

/**
 * The SQLite store's path when none is given, relative to the working directory.
 *
 * @example
 * ```ts
 * import { openStore } from "./open-store.js";
 * await openStore(`sqlite:${DEFAULT_SQLITE_PATH}`);
 * ```
 */
export const DEFAULT_SQLITE_PATH = ".docket/docket.db";

/** How SQLite syncs: see sqlite-store.ts for the trade-off. */
export type SqliteSynchronous = "OFF" | "NORMAL" | "FULL" | "EXTRA";

/** A store URL, taken apart. */
export type StoreTarget =
  | {
      readonly engine: "sqlite";
      /** A file path, or `:memory:`. */
      readonly path: string;
      readonly synchronous: SqliteSynchronous;
      readonly busyTimeoutMs: number;
      /** False with `?buffer=off`: every event is committed before its emit resolves. */
      readonly buffer: boolean;
    }
  | {
      readonly engine: "postgres";
      /** The connection string without docket's own parameters. */
      readonly connectionString: string;
      /** `?schema=NAME`: tables live in this schema (created when missing). */
      readonly schema: string | undefined;
      readonly buffer: boolean;
      /** `?connect_timeout=SECONDS` (libpq's meaning), default 10; 0 waits for ever. */
      readonly connectTimeoutMs: number;
      /**
       * `?query_timeout=MS`, default 60,000: a statement with no answer by then fails (the call
       * fails closed, its commit in doubt until the next write asks); 0 waits for ever.
       */
      readonly queryTimeoutMs: number;
    };

const SYNC_MODES = new Set(["OFF", "NORMAL", "FULL", "EXTRA"]);

/**
 * Take a store URL apart: `sqlite:PATH` (default `.docket/docket.db`), a bare path, `:memory:`,
 * or `postgres://…` / `postgresql://…`. SQLite takes `?synchronous=FULL`, `?busy_timeout=MS`
 * and `?buffer=off`; PostgreSQL takes `?schema=NAME`, `?buffer=off`, `?connect_timeout=SECONDS`
 * and `?query_timeout=MS` (the rest goes to pg).
 *
 * @example
 * ```ts
 * parseStoreUrl("sqlite:data/docket.db?synchronous=FULL");
 * // { engine: "sqlite", path: "data/docket.db", synchronous: "FULL", busyTimeoutMs: 5000, buffer: true }
 * ```
 */
export function parseStoreUrl(url: string): StoreTarget {
  const trimmed = url.trim();
  if (/^postgres(ql)?:\/\//i.test(trimmed)) return parsePostgres(trimmed);
  // A mistyped scheme (postgress://, mysql://) must not become a SQLite file named after it.
  // Two letters at least, so a Windows drive (C:\…) still reads as a path.
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(trimmed)?.[1];
  if (scheme !== undefined && scheme.toLowerCase() !== "sqlite") {
    throw new DocketError(
      "invalid_store_url",
      `Unknown store scheme "${scheme}:" in ${redactStoreUrl(url)}: use sqlite:PATH, a file path, or postgres://…`,
    );
  }
  let rest = trimmed.replace(/^sqlite:(\/\/)?/i, "");
  let query = "";
  const mark = rest.indexOf("?");
  if (mark >= 0) {
    query = rest.slice(mark + 1);
    rest = rest.slice(0, mark);
  }
  const params = new URLSearchParams(query);
  const synchronous = (params.get("synchronous") ?? "NORMAL").toUpperCase();
  if (!SYNC_MODES.has(synchronous)) {
    throw new DocketError(
      "invalid_store_url",
      `Unknown synchronous mode ${JSON.stringify(synchronous)} in ${redactStoreUrl(url)}: use NORMAL or FULL.`,
    );
  }
  const busy = Number(params.get("busy_timeout") ?? 5000);
  if (!Number.isInteger(busy) || busy < 0) {
    throw new DocketError(
      "invalid_store_url",
      `busy_timeout must be a number of ms in ${redactStoreUrl(url)}.`,
    );
  }
  return {
    engine: "sqlite",
    path: rest === "" ? DEFAULT_SQLITE_PATH : rest,
    synchronous: synchronous as SqliteSynchronous,
    busyTimeoutMs: busy,
    buffer: params.get("buffer") !== "off",
  };
}

function parsePostgres(url: string): StoreTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new DocketError("invalid_store_url", "The PostgreSQL store URL cannot be parsed.", {
      cause: error,
    });
  }
  const schema = parsed.searchParams.get("schema") ?? undefined;
  // Lower case only: the name is used unquoted in search_path, where PostgreSQL folds case.
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new DocketError(
      "invalid_store_url",
      `The schema name ${JSON.stringify(schema)} must be a plain lower-case identifier.`,
    );
  }
  const buffer = parsed.searchParams.get("buffer") !== "off";
  // Node's timers take at most 2^31 - 1 ms (about 24.8 days); a longer one fires at once.
  const connectSeconds = wholeNumber(parsed, "connect_timeout", 10, "seconds", 2_147_483);
  const queryTimeoutMs = wholeNumber(parsed, "query_timeout", 60_000, "ms", 2_147_483_647);
  for (const name of ["schema", "buffer", "connect_timeout", "query_timeout"]) {
    parsed.searchParams.delete(name);
  }
  return {
    engine: "postgres",
    connectionString: parsed.toString(),
    schema,
    buffer,
    connectTimeoutMs: connectSeconds * 1000,
    queryTimeoutMs,
  };
}

/** A parameter that must be a whole number from 0 to `most` when given, else `fallback`. */
function wholeNumber(
  parsed: URL,
  name: string,
  fallback: number,
  unit: string,
  most: number,
): number {
  const given = parsed.searchParams.get(name);
  if (given === null) return fallback;
  const value = /^\d+$/.test(given) ? Number(given) : Number.NaN;
  if (!(value >= 0 && value <= most)) {
    throw new DocketError(
      "invalid_store_url",
      `${name} must be a whole number of ${unit} from 0 (no limit) to ${most}, not ${JSON.stringify(given)}, in ${redactStoreUrl(parsed.toString())}.`,
    );
  }
  return value;
}

/**
 * A store URL fit to print: the password, if any, replaced by `***`, and any other credential
 * shape masked (a path that is really a mistyped URL still carries one).
 *
 * @example
 * ```ts
 * redactStoreUrl("postgres://u:secret@db/docket"); // "postgres://u:***@db/docket"
 * ```
 */
export function redactStoreUrl(url: string): string {
  return maskSecrets(url);
}
