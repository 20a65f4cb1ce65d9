import { homedir } from "node:os";
import * as path from "node:path";
import { resolveAuditPaths } from "../audit/audit-key.js";
import type { PolicyLayer } from "../policy/policy-rule.js";
import { parseStoreUrl } from "../store/store-url.js";
import { type DocketOwnFiles, docketOwnFiles, type OwnFileSpec } from "./docket-own-files.js";

/** What a running docket knows about where its files are. */
export interface RuntimeFiles {
  /** The store URL in use (only a SQLite file is a file to protect). */
  readonly storeUrl?: string;
  /** docket.yaml as loaded; protected even when it does not exist yet. */
  readonly configFile?: string;
  /** The loaded policy layers: every one read from a file names it in `source.file`. */
  readonly layers?: readonly PolicyLayer[];
  /** The raw docket.yaml sections, for `audit.key_file` and `sandbox.hide` when present. */
  readonly sections?: Readonly<Record<string, unknown>>;
  readonly workspace?: string;
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Files a caller adds, relative to the cwd, the workspace and the home folder alike: a hook
   * adds the host settings that register docket, so that no tool moves, edits or shadows them.
   */
  readonly alsoOwn?: readonly { readonly file: string; readonly what: string }[];
}

/**
 * docket's own files for a runtime: the SQLite store and its `-wal`/`-shm`/`-journal` siblings,
 * `.docket/` (of the cwd and of the workspace), docket.yaml (the loaded one and the default
 * name, which `write_file` must not create), every loaded policy file, the managed policy,
 * docket's user config folder (`~/.config/docket/`: user policy, audit key, digest log), the
 * `audit.key_file` and the `sandbox.hide` additions.
 *
 * @example
 * ```ts
 * import { resolve } from "node:path";
 * const own = runtimeOwnFiles({ storeUrl: "sqlite:.docket/docket.db", configFile: "docket.yaml" });
 * own.find(resolve(".docket/docket.db-wal"))?.what; // "docket's state folder"
 * ```
 */
export function runtimeOwnFiles(runtime: RuntimeFiles = {}): DocketOwnFiles {
  return docketOwnFiles(ownFileSpec(runtime));
}

/**
 * The spec `runtimeOwnFiles` protects, for callers that add to it (the sandbox hides the same).
 *
 * @example
 * ```ts
 * ownFileSpec({ configFile: "docket.yaml" }).files?.map((file) => file.path);
 * ```
 */
export function ownFileSpec(runtime: RuntimeFiles = {}): OwnFileSpec {
  const env = runtime.env ?? process.env;
  const cwd = runtime.cwd ?? process.cwd();
  const workspace = path.resolve(cwd, runtime.workspace ?? ".");
  const home = env.HOME || homedir();
  const files: { path: string; what: string }[] = [];
  const directories: { path: string; what: string }[] = [];
  const globs: { pattern: string; what: string }[] = [];

  for (const base of new Set([cwd, workspace])) {
    directories.push({ path: path.join(base, ".docket"), what: "docket's state folder" });
    files.push({ path: path.join(base, "docket.yaml"), what: "docket.yaml" });
    files.push({ path: path.join(base, "docket.lock.json"), what: "the MCP tool pins" });
  }
  if (runtime.configFile !== undefined) {
    files.push({ path: path.resolve(cwd, runtime.configFile), what: "docket.yaml" });
    // The project's state folder beside docket.yaml (store, chat history), wherever docket runs.
    directories.push({
      path: path.join(path.dirname(path.resolve(cwd, runtime.configFile)), ".docket"),
      what: "docket's state folder",
    });
    const lock = path.join(path.dirname(path.resolve(cwd, runtime.configFile)), "docket.lock.json");
    files.push({ path: lock, what: "the MCP tool pins" });
  }
  const store = storeFile(runtime.storeUrl);
  if (store !== undefined) {
    const file = path.resolve(cwd, store);
    for (const suffix of ["", "-wal", "-shm", "-journal"]) {
      files.push({ path: `${file}${suffix}`, what: "the store" });
    }
  }
  if (runtime.storeUrl !== undefined && /^postgres(ql)?:\/\//i.test(runtime.storeUrl)) {
    // A PostgreSQL store's password may sit in libpq's password file: that is the store's key.
    files.push({ path: path.join(home, ".pgpass"), what: "the store's password file" });
    if (env.PGPASSFILE) {
      files.push({ path: path.resolve(cwd, env.PGPASSFILE), what: "the store's password file" });
    }
  }
  for (const layer of runtime.layers ?? []) {
    if (layer.source?.file) {
      files.push({ path: path.resolve(cwd, layer.source.file), what: `the ${layer.name} policy` });
    }
  }
  if (env.DOCKET_MANAGED_POLICY) {
    files.push({ path: path.resolve(cwd, env.DOCKET_MANAGED_POLICY), what: "the managed policy" });
  }
  const configHome = env.XDG_CONFIG_HOME || path.join(home, ".config");
  directories.push({ path: path.join(configHome, "docket"), what: "docket's user config folder" });

  const audit = record(runtime.sections?.audit);
  if (typeof audit?.key_file === "string") {
    files.push({ path: expand(audit.key_file, home, cwd), what: "the audit key" });
  }
  // Wherever the key and the digest log are (DOCKET_AUDIT_KEY, audit.key_file, audit.digests),
  // the same resolution the signer uses names them, so none of them is left within reach.
  const paths = resolveAuditPaths({
    ...(typeof audit?.key_file === "string" ? { keyFile: expand(audit.key_file, home, cwd) } : {}),
    ...(typeof audit?.digests === "string" ? { digests: audit.digests } : {}),
    env,
  });
  files.push({ path: paths.keyFile, what: "the audit key" });
  files.push({ path: paths.publicKeyFile, what: "the audit public key" });
  if (!/^postgres(ql)?:\/\//.test(paths.digests)) {
    files.push({ path: paths.digests, what: "the audit digest log" });
  }
  for (const extra of runtime.alsoOwn ?? []) {
    for (const base of new Set([cwd, workspace, home])) {
      files.push({ path: path.resolve(base, extra.file), what: extra.what });
    }
  }
  const sandbox = record(runtime.sections?.sandbox);
  if (Array.isArray(sandbox?.hide)) {
    for (const item of sandbox.hide) {
      if (typeof item !== "string" || item.trim() === "") continue;
      const full = expand(item, home, cwd);
      if (/[*?[\]{}]/.test(item)) globs.push({ pattern: full, what: "hidden by sandbox.hide" });
      else directories.push({ path: full, what: "hidden by sandbox.hide" });
    }
  }
  return { files, directories, globs, cwd };
}

function storeFile(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    const target = parseStoreUrl(url);
    return target.engine === "sqlite" && target.path !== ":memory:" ? target.path : undefined;
  } catch {
    return undefined;
  }
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function expand(file: string, home: string, cwd: string): string {
  if (file === "~") return home;
  if (file.startsWith("~/")) return path.join(home, file.slice(2));
  return path.resolve(cwd, file);
}
