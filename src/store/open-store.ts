import { DocketError } from "../errors/docket-error.js";
import type { AttestationSigner } from "./audit-attestation.js";
import { createOwner, releaseOwner } from "./call-owner.js";
import type { EngineOptions } from "./engine-options.js";
import { EngineStore } from "./engine-store.js";
import type { Store } from "./store.js";
import type { StoreEngine } from "./store-engine.js";
import { DEFAULT_SQLITE_PATH, parseStoreUrl, redactStoreUrl } from "./store-url.js";

/** How `openStore` opens a store. Every field has a default. */
export interface OpenStoreOptions {
  /** The chain (and calls key) of events without a session. Default `""`. */
  readonly defaultSession?: string;
  /**
   * On open, close started writes whose process is gone as `interrupted` and release their
   * stale claims (`markInterrupted()`). Default true; never done read-only.
   */
  readonly recover?: boolean;
  /** Open without writing anything: no migration, no recovery. Default false. */
  readonly readOnly?: boolean;
  /** Fail with `store_not_found` instead of creating a new SQLite file. Default false. */
  readonly mustExist?: boolean;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly clock?: () => number;
  /**
   * Signs attestations of the chains this store writes (`createAuditSigner`, docs/audit.md).
   * Default none: no attestations are written.
   */
  readonly signer?: AttestationSigner;
  /** The longest a written event stays unsigned during a long batch. Default 2000 ms. */
  readonly attestationIntervalMs?: number;
  /**
   * The same as `attestationIntervalMs`, under its name before ADR 0065; ignored when that is set.
   *
   * @deprecated Use `attestationIntervalMs`.
   */
  readonly checkpointIntervalMs?: number; // legacy-name
}

/**
 * Open a store by URL: `sqlite:PATH` (default `.docket/docket.db`, folders created on first
 * use), a bare path, `:memory:`, or `postgres://…` / `postgresql://…`. The database driver is
 * loaded here, on demand: importing docket never loads better-sqlite3 or pg.
 *
 * Throws DocketError: `store_too_new` (written by a newer docket; left untouched),
 * `store_not_found`, `store_open_failed`, `invalid_store_url`.
 *
 * @example
 * ```ts
 * import { resolveStoreUrl } from "./resolve-store-url.js";
 * const store = await openStore(resolveStoreUrl());
 * try {
 *   console.log(await store.verifyChain());
 * } finally {
 *   await store.close();
 * }
 * ```
 */
export async function openStore(
  url = `sqlite:${DEFAULT_SQLITE_PATH}`,
  {
    defaultSession = "",
    recover = true,
    readOnly = false,
    mustExist = false,
    clock = Date.now,
    signer,
    checkpointIntervalMs = 2000, // legacy-name
    attestationIntervalMs = checkpointIntervalMs, // legacy-name
  }: OpenStoreOptions = {},
): Promise<Store> {
  if (typeof url !== "string") {
    throw new DocketError("invalid_store_url", "A store URL must be a string.");
  }
  const target = parseStoreUrl(url);
  const options: EngineOptions = {
    location: redactStoreUrl(url),
    defaultSession,
    readOnly,
    mustExist,
    clock,
  };
  const owner = createOwner();
  let engine: StoreEngine;
  try {
    if (target.engine === "sqlite") {
      // Node's own node:sqlite: nothing to install (ADR 0053).
      const { SqliteEngine } = await import("./sqlite/sqlite-engine.js");
      engine = SqliteEngine.open(target, { readOnly, mustExist }, owner, clock);
    } else {
      const { PostgresEngine } = await loadDriver(
        "pg",
        "postgres:",
        () => import("./postgres/postgres-engine.js"),
      );
      engine = await PostgresEngine.open(
        target,
        { readOnly, location: options.location },
        owner,
        clock,
      );
    }
  } catch (error) {
    releaseOwner(owner);
    throw error;
  }
  const store = new EngineStore(engine, options, owner, {
    buffer: target.buffer,
    ...(signer ? { signer } : {}),
    attestationIntervalMs,
  });
  if (recover && !readOnly) {
    try {
      await store.markInterrupted();
    } catch (error) {
      await store.close().catch(() => undefined);
      throw error;
    }
  }
  return store;
}

/**
 * Load an engine whose database driver is an optional peer dependency: a driver that is not
 * installed stops with the package to install, not a module-resolution trace.
 */
async function loadDriver<T>(pkg: string, scheme: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message = String((error as Error).message);
    if (code === "ERR_MODULE_NOT_FOUND" && message.includes(`'${pkg}'`)) {
      throw new DocketError(
        "store_open_failed",
        `A ${scheme} store needs the "${pkg}" package, which is not installed: run \`npm i -E ${pkg}\` in your project.`,
        { cause: error },
      );
    }
    throw error;
  }
}
