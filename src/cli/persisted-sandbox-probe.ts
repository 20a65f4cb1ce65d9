import { createHash } from "node:crypto";
import { accessSync, constants, readFileSync, readlinkSync, statSync } from "node:fs";
import { release } from "node:os";
import * as path from "node:path";
import type { ProbeMemory, ProbeSlot, SandboxProbe } from "../sandbox/probe-sandbox.js";
import { PROBE_ARGS } from "../sandbox/probe-sandbox.js";
import { docketCacheDir } from "../shared/docket-cache-dir.js";
import { parseJson } from "../shared/parse-json.js";
import {
  readCodeCacheEntry,
  removeCodeCacheEntry,
  writeCodeCacheEntry,
} from "./code-cache-entry.js";

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

/** The binary a name runs: itself when it holds a slash, else the first executable on PATH. */
function resolveBinary(bwrapPath: string, env: NodeJS.ProcessEnv): string | undefined {
  if (bwrapPath.includes("/")) return path.resolve(bwrapPath);
  for (const folder of (env.PATH ?? "").split(path.delimiter)) {
    if (folder === "") continue;
    const candidate = path.join(folder, bwrapPath);
    try {
      // As execvp looks: a file this user may execute, not any file of the name.
      if (statSync(candidate).isFile()) {
        accessSync(candidate, constants.X_OK);
        return candidate;
      }
    } catch {
      // Not here, or not executable: the next folder.
    }
  }
  return undefined;
}

/** The lines of /proc/self/status that say what this process may do beyond its user. */
const RESTRICTIONS = /^(Seccomp|Seccomp_filters|NoNewPrivs|CapEff|CapBnd|CapPrm):/;

/**
 * What decides, beyond the binary, whether this process can make namespaces: the user and
 * group; the kernel and this boot of it; the user and mount namespaces it runs in (another
 * container is another answer); its seccomp filters, no-new-privileges flag and capabilities (a
 * service with `RestrictNamespaces=`, say); its security label (AppArmor, SELinux); and the
 * kernel's switches for unprivileged user namespaces. What cannot be read is null.
 *
 * @example
 * ```ts
 * machineFacts(); // [0, 0, "6.1.0-…", "3f0c…", "user:[4026531837]", …]
 * ```
 */
export function machineFacts(): unknown[] {
  return [
    process.getuid?.() ?? null,
    process.getgid?.() ?? null,
    release(),
    readOrNull(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8")),
    readOrNull(() => readlinkSync("/proc/self/ns/user")),
    readOrNull(() => readlinkSync("/proc/self/ns/mnt")),
    readOrNull(() =>
      readFileSync("/proc/self/status", "utf8")
        .split("\n")
        .filter((line) => RESTRICTIONS.test(line))
        .join("\n"),
    ),
    readOrNull(() => readFileSync("/proc/self/attr/current", "utf8")),
    ...NAMESPACE_SWITCHES.map((file) => readOrNull(() => readFileSync(file, "utf8"))),
  ];
}

/**
 * Everything the probe's answer depends on that can be read without starting a process: the
 * name given and the binary it finds, with its identity on disk; `machineFacts`; `PATH` (the
 * probe finds `true` on it); and the probe's own arguments. Any change is another key.
 */
function probeKey(bwrapPath: string, env: NodeJS.ProcessEnv, machine: unknown[]): Buffer {
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
    machine,
    PROBE_ARGS,
    env.PATH ?? null,
  ];
  return createHash("sha256").update(JSON.stringify(parts)).digest();
}

/** A kept answer, checked field by field: only "available" is ever kept. */
function asProbe(value: unknown, bwrapPath: string): SandboxProbe | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const probe = value as Record<string, unknown>;
  if (probe.bwrapPath !== bwrapPath) return undefined;
  if (probe.status === "available" && typeof probe.version === "string")
    return { status: "available", bwrapPath, version: probe.version };
  return undefined;
}

/**
 * The sandbox probe's "available" kept in docket's cache folder (`cache/sandbox-probe/`, which
 * every tool is refused and the sandbox hides), so that a cold `docket run`, `docket mcp` or
 * `policy check run_command` does not start bubblewrap each time: starting it cost a cold command
 * about 30 to 40 ms here (ADR 0088). The answer is keyed, before the probe starts, by everything
 * it depends on that can be read without a process (the binary and its identity on disk,
 * `machineFacts`, `PATH`), one entry a key, and believed for an hour. An "unavailable" is never
 * kept and forgets the key's entry: every process probes afresh until bubblewrap works. It is
 * read and written through the code cache's checks: this user's folder and file, no link, a
 * digest. None when `DOCKET_CACHE=off`. `docket doctor` always probes, and keeps what it saw.
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
  machine = machineFacts,
}: {
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  /** What the key holds beyond the binary and PATH; for tests. */
  machine?: () => unknown[];
} = {}): ProbeMemory | undefined {
  let cache: string | undefined;
  try {
    cache = docketCacheDir(env);
  } catch {
    // No home folder to be found: nothing is kept.
    return undefined;
  }
  if (cache === undefined) return undefined;
  const dir = path.join(cache, "sandbox-probe");
  return {
    open(bwrapPath): ProbeSlot {
      let key: Buffer;
      try {
        key = probeKey(bwrapPath, env, machine());
      } catch {
        return { kept: undefined, keep: () => {} };
      }
      // One entry a key: two projects' binaries, or two PATHs, do not evict each other.
      const name = `${ENTRY}-${key.toString("hex").slice(0, 16)}`;
      return {
        kept: recall(dir, name, key, bwrapPath, now),
        keep(probe) {
          try {
            if (probe.status !== "available") {
              removeCodeCacheEntry(dir, name, key);
              return;
            }
            const body = Buffer.from(JSON.stringify({ at: now(), probe }), "utf8");
            writeCodeCacheEntry(dir, name, key, body);
          } catch {
            // An answer that cannot be kept is probed again next time.
          }
        },
      };
    },
  };
}

function recall(
  dir: string,
  name: string,
  key: Buffer,
  bwrapPath: string,
  now: () => number,
): SandboxProbe | undefined {
  try {
    const read = readCodeCacheEntry(dir, name, key);
    if (read.status !== "hit") return undefined;
    const kept = parseJson(read.data.toString("utf8")) as { at?: unknown; probe?: unknown };
    const at = kept?.at;
    // Not in the future either: a clock set back does not keep an answer forever.
    if (typeof at !== "number" || at > now() || now() - at > TRUSTED_FOR_MS) return undefined;
    return asProbe(kept.probe, bwrapPath);
  } catch {
    return undefined;
  }
}
