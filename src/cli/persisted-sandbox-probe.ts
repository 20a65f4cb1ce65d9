import { createHash } from "node:crypto";
import { readFileSync, readlinkSync, statSync } from "node:fs";
import { release } from "node:os";
import * as path from "node:path";
import type { ProbeMemory, SandboxProbe } from "../sandbox/probe-sandbox.js";
import { PROBE_ARGS } from "../sandbox/probe-sandbox.js";
import { docketCacheDir } from "../shared/docket-cache-dir.js";
import { parseJson } from "../shared/parse-json.js";
import { readCodeCacheEntry, writeCodeCacheEntry } from "./code-cache-entry.js";

/** How long a kept answer is believed: a change the key cannot see is caught within this. */
const TRUSTED_FOR_MS = 60 * 60 * 1000;
const FORMAT = 1;
const ENTRY = "sandbox-probe";

/**
 * What the kernel lets an unprivileged user do with namespaces: the switches that decide
 * whether bubblewrap can make its sandbox, where this kernel has them (a missing one reads null).
 */
const NAMESPACE_SWITCHES = [
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
  "/proc/sys/kernel/unprivileged_userns_apparmor_policy",
];

const readOrNull = (read: () => string): string | null => {
  try {
    return read().trim();
  } catch {
    return null;
  }
};

/** The binary a name runs: itself when it holds a slash, else the first on PATH. */
function resolveBinary(bwrapPath: string, env: NodeJS.ProcessEnv): string | undefined {
  if (bwrapPath.includes("/")) return path.resolve(bwrapPath);
  for (const folder of (env.PATH ?? "").split(path.delimiter)) {
    if (folder === "") continue;
    const candidate = path.join(folder, bwrapPath);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

/**
 * Everything the probe's answer depends on that can be read without starting a process: the
 * binary (which file, and its identity on disk), this user, the kernel and this boot of it, the
 * namespaces docket runs in (another container is another key), the kernel's namespace
 * switches, and the probe's own arguments. Any change is another key, so a new answer.
 */
function probeKey(bwrapPath: string, env: NodeJS.ProcessEnv): Buffer {
  const binary = resolveBinary(bwrapPath, env);
  let identity: unknown = null;
  if (binary !== undefined) {
    try {
      const stat = statSync(binary);
      identity = [stat.dev, stat.ino, stat.size, stat.mtimeMs, stat.ctimeMs, stat.mode, stat.uid];
    } catch {
      identity = null;
    }
  }
  const parts = [
    FORMAT,
    bwrapPath,
    binary ?? null,
    identity,
    process.getuid?.() ?? null,
    process.getgid?.() ?? null,
    release(),
    readOrNull(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8")),
    readOrNull(() => readlinkSync("/proc/self/ns/user")),
    readOrNull(() => readlinkSync("/proc/self/ns/mnt")),
    ...NAMESPACE_SWITCHES.map((file) => readOrNull(() => readFileSync(file, "utf8"))),
    PROBE_ARGS,
    env.PATH ?? null,
  ];
  return createHash("sha256").update(JSON.stringify(parts)).digest();
}

/** A kept answer, checked field by field: anything else is not one. */
function asProbe(value: unknown, bwrapPath: string): SandboxProbe | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const probe = value as Record<string, unknown>;
  if (probe.bwrapPath !== bwrapPath) return undefined;
  if (probe.status === "available" && typeof probe.version === "string")
    return { status: "available", bwrapPath, version: probe.version };
  if (
    probe.status === "unavailable" &&
    (probe.kind === "missing" || probe.kind === "forbidden") &&
    typeof probe.reason === "string"
  )
    return { status: "unavailable", bwrapPath, kind: probe.kind, reason: probe.reason };
  return undefined;
}

/**
 * The sandbox probe's answer kept in docket's cache folder (`cache/sandbox-probe/`, which every
 * tool is refused and the sandbox hides), so that a cold `docket run`, `docket mcp` or
 * `policy check run_command` does not start bubblewrap each time: starting it cost a cold command about 30
 * to 40 ms here. The answer is keyed by everything it depends on that can be read without a
 * process (the binary and its identity on disk, the user, the kernel, its boot, the namespaces
 * docket runs in, the kernel's namespace switches) and believed for an hour. It is read and
 * written through the code cache's checks: this user's folder and file, no link, a digest.
 * None when `DOCKET_CACHE=off`. `docket doctor` always probes afresh.
 *
 * @example
 * ```ts
 * import { probeSandboxSoon } from "../sandbox/probe-sandbox.js";
 * const memory = persistedSandboxProbes();
 * await probeSandboxSoon("bwrap", { version: false, ...(memory ? { memory } : {}) });
 * ```
 */
export function persistedSandboxProbes({
  env = process.env,
  now = Date.now,
}: {
  env?: NodeJS.ProcessEnv;
  now?: () => number;
} = {}): ProbeMemory | undefined {
  const cache = docketCacheDir(env);
  if (cache === undefined) return undefined;
  const dir = path.join(cache, "sandbox-probe");
  return {
    recall(bwrapPath) {
      try {
        const read = readCodeCacheEntry(dir, ENTRY, probeKey(bwrapPath, env));
        if (read.status !== "hit") return undefined;
        const kept = parseJson(read.data.toString("utf8")) as { at?: unknown; probe?: unknown };
        const at = kept?.at;
        // Not in the future either: a clock set back does not keep an answer forever.
        if (typeof at !== "number" || at > now() || now() - at > TRUSTED_FOR_MS) return undefined;
        return asProbe(kept.probe, bwrapPath);
      } catch {
        return undefined;
      }
    },
    keep(bwrapPath, probe) {
      try {
        const body = Buffer.from(JSON.stringify({ at: now(), probe }), "utf8");
        writeCodeCacheEntry(dir, ENTRY, probeKey(bwrapPath, env), body);
      } catch {
        // An answer that cannot be kept is probed again next time.
      }
    },
  };
}
