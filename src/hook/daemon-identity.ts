// What a hook call would be judged by, named the same way by the thin client and by `docket hook
// serve`: a daemon answers only calls that would be judged as it judges (docs/adr/0104). Loaded by
// the client in the launcher, so it reads files and hashes, and loads no configuration code.
import type * as Fs from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { locateConfigFile } from "../config/locate-config-file.js";
import { userConfigFile } from "../config/user-config-file.js";
import { fastDigest } from "../shared/fast-digest.js";

// node:fs as CommonJS gives it: an ESM import of it evaluates every export, and with them
// fs/promises, readline and the REPL's history (11 of Node's own modules, about 0.7 ms of a
// hook call the daemon client in the launcher answers). A Node without it loads this module
// all the same, so that the launcher can refuse that Node in words (the call denied).
const { existsSync, readFileSync } = process.getBuiltinModule?.("node:fs") ?? ({} as typeof Fs);

/**
 * What decides a hook's answer besides its payload and the files' contents (a daemon reloads
 * those as they change), as paths and a digest (`fastDigest`; never a value of the environment
 * itself, which may hold a secret).
 */
export interface DaemonIdentityParts {
  /** docket.yaml, absolute, or "" when there is none. */
  readonly config: string;
  /** The user layer's file (`~/.config/docket/config.yaml`), whether or not it exists. */
  readonly user: string;
  /**
   * Which of the user's two files exist (config.yaml, policy.yaml beside it), as "10" and the
   * like: a file made or removed after a daemon started is a configuration it never watched.
   */
  readonly present: string;
  /** `--store` or `DOCKET_STORE`, a relative SQLite path made absolute, or "". */
  readonly store: string;
  /**
   * The hook's working folder: docket resolves a command's relative paths, and protects the
   * docket.yaml, from there, so a daemon serves the calls of one folder (ADR 0104).
   */
  readonly folder: string;
  /** Digest of the environment docket reads (see `readsVariable`). */
  readonly env: string;
  /**
   * The docket build that judges (`DOCKET_BUILD`): after an upgrade a hook call is judged by the
   * docket now installed, never by a daemon an earlier one started.
   */
  readonly build: string;
}

/**
 * A daemon's identity: its parts, the folder whose `.docket/` holds its socket (docket.yaml's,
 * else the working folder), and its key.
 */
export interface DaemonIdentity {
  readonly parts: DaemonIdentityParts;
  readonly base: string;
  /** 16 hex characters of the parts' digest: the socket's name. */
  readonly key: string;
}

/** What a hook line or `docket hook serve` was given. */
export interface DaemonIdentityRequest {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly config?: string | undefined;
  readonly store?: string | undefined;
  /** The build to name; this code's own (`DOCKET_BUILD`) unless given. */
  readonly build?: string | undefined;
}

const PART_NAMES: readonly (keyof DaemonIdentityParts)[] = [
  "config",
  "user",
  "present",
  "store",
  "folder",
  "env",
  "build",
];

declare const __DOCKET_BUILD__: string | undefined;

/**
 * This docket's build: a digest of its bundled code, written into it by scripts/bundle.mjs, the
 * same in the hook client (the launcher) and the daemon (the CLI's bundle) of one installation;
 * "source" when docket runs from its TypeScript sources.
 *
 * @example
 * ```ts
 * DOCKET_BUILD; // e.g. "3f9c0b1e7a24d615", or "source"
 * ```
 */
export const DOCKET_BUILD: string =
  typeof __DOCKET_BUILD__ === "string" ? __DOCKET_BUILD__ : "source";

// Not node:crypto: loading it is about 5 ms of a hook call that the daemon answers.
const digest = fastDigest;

function textOf(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, "utf8") : undefined;
}

/** The variables docket reads besides those a configuration names with `${NAME}`. */
function readsVariable(name: string): boolean {
  // DOCKET_CONFIG and DOCKET_STORE are parts of their own, resolved; the timeout is the client's.
  if (name === "DOCKET_CONFIG" || name === "DOCKET_STORE" || name === "DOCKET_HOOK_TIMEOUT") {
    return false;
  }
  return (
    name.startsWith("DOCKET_") ||
    name.startsWith("OTEL_") ||
    // A PostgreSQL store's connection reads PGHOST, PGPASSFILE, PGSSLMODE and the like.
    /^PG[A-Z_]+$/.test(name) ||
    name === "HOME" ||
    name === "XDG_CONFIG_HOME"
  );
}

function namedVariables(texts: readonly (string | undefined)[]): Set<string> {
  const names = new Set<string>();
  for (const text of texts) {
    for (const match of text?.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g) ?? []) {
      if (match[1]) names.add(match[1]);
    }
  }
  return names;
}

function resolvedStore(store: string | undefined, cwd: string): string {
  if (store === undefined || store.trim() === "") return "";
  if (store.includes("://") || store === ":memory:" || store.startsWith("sqlite::memory:")) {
    return store;
  }
  const path = store.startsWith("sqlite:") ? store.slice("sqlite:".length) : store;
  return isAbsolute(path) ? store : `sqlite:${resolve(cwd, path)}`;
}

/**
 * Name what a hook call from `cwd` with these flags and this environment would be judged by:
 * docket.yaml found as every command finds it (a missing `--config` file throws, as it does for
 * them), the user layer, the store, the environment docket reads (the variables the two files
 * name with `${NAME}` included) and the docket build. Two requests with the same key are judged alike; a daemon
 * started for one answers the other, and reloads the files' contents as they change.
 *
 * @example
 * ```ts
 * const identity = daemonIdentity({ cwd: process.cwd(), env: process.env });
 * identity.key; // e.g. "5f0c2a91d04e7b36"
 * ```
 */
export function daemonIdentity({
  cwd,
  env,
  config,
  store,
  build = DOCKET_BUILD,
}: DaemonIdentityRequest): DaemonIdentity {
  const lookup = locateConfigFile({ flag: config, env, cwd });
  if (lookup.status === "missing") throw new Error(lookup.message);
  const found = lookup.status === "found" ? lookup.location : undefined;
  const configText = found ? textOf(found.file) : undefined;
  const user = userConfigFile(env);
  const userText = textOf(user);
  const base = found ? dirname(found.file) : resolve(cwd);
  const named = namedVariables([configText, userText]);
  const read = Object.keys(env)
    .filter((name) => readsVariable(name) || named.has(name))
    .sort()
    .map((name) => [name, env[name] ?? ""]);
  const parts: DaemonIdentityParts = {
    config: found?.file ?? "",
    user,
    present: `${userText === undefined ? 0 : 1}${existsSync(join(dirname(user), "policy.yaml")) ? 1 : 0}`,
    store: resolvedStore(store ?? env.DOCKET_STORE, cwd),
    folder: resolve(cwd),
    env: digest(JSON.stringify(read)),
    build,
  };
  return { parts, base, key: digest(JSON.stringify(parts)) };
}

/**
 * Why a call that names `theirs` is not one a daemon of `own` may judge, or undefined when it is.
 * Anything that is not a whole set of parts (an older client's request) is not.
 *
 * @example
 * ```ts
 * declare const own: DaemonIdentityParts;
 * identityMismatch(own, own); // undefined
 * identityMismatch(own, { ...own, store: "sqlite:/tmp/other.db" }); // "it writes …, this call sqlite:/tmp/other.db"
 * ```
 */
export function identityMismatch(own: DaemonIdentityParts, theirs: unknown): string | undefined {
  if (typeof theirs !== "object" || theirs === null) return "the call did not say what judges it";
  const given = theirs as Record<string, unknown>;
  const differs = PART_NAMES.find((name) => given[name] !== own[name]);
  switch (differs) {
    case undefined:
      return undefined;
    case "config":
      return `it reads ${own.config || "no docket.yaml"}, this call ${typeof given.config === "string" && given.config ? given.config : "no docket.yaml"}`;
    case "user":
      return `it reads the user configuration ${own.user}, this call ${String(given.user)}`;
    case "present":
      return `the user's config.yaml or policy.yaml beside ${own.user} was made or removed since it started`;
    case "store":
      return `it writes ${own.store || "the configured store"}, this call ${typeof given.store === "string" && given.store ? given.store : "the configured store"}`;
    case "folder":
      return `it runs from ${own.folder}, this call from ${String(given.folder)}`;
    case "env":
      return "this call's environment (HOME, XDG_CONFIG_HOME, DOCKET_*, OTEL_* or PG* variables, or one a configuration names) is not the daemon's";
    case "build":
      return `it runs docket build ${own.build}, this call build ${String(given.build)} (docket was upgraded or reinstalled since it started)`;
  }
}
