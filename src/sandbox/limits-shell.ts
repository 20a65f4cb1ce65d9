import { existsSync } from "node:fs";
import { inheritedFds } from "./inherited-fds.js";

// The process and memory ceilings. Memory is RLIMIT_DATA (heap and private writable mappings),
// not RLIMIT_AS: V8 and every WebAssembly instance reserve gigabytes of address space they never
// touch, so an address-space cap of 8 GiB already broke tsx's wasm lexer. The process count is
// the call's pids cgroup where one can be made; otherwise RLIMIT_NPROC, set inside the user
// namespace, where it counts only the sandbox's processes (outside it would count every process
// of the user). dash calls the process limit -p, bash -u.
const DATA_LIMIT = 'ulimit -d "$1" || exit 125; ';
const PROCESS_LIMIT = 'ulimit -u "$2" 2>/dev/null || ulimit -p "$2" 2>/dev/null; ';

/**
 * A bash loop closing every descriptor but stdin, stdout and stderr (and fd 3 with `keep3`): a
 * descriptor docket inherited from its parent without close-on-exec (a log, a socket, a writable
 * file) would otherwise pass through bwrap into the command.
 *
 * @example
 * ```ts
 * import { spawn } from "node:child_process";
 * spawn("/bin/bash", ["--norc", "-c", `${closeAllFds(false)}exec "$@"`, "sh", "bwrap", "--help"]);
 * ```
 */
export const closeAllFds = (keep3: boolean): string =>
  `for fd in /proc/$$/fd/*; do fd=\${fd##*/}; case $fd in 0|1|2${keep3 ? "|3" : ""}) ;; *) eval "exec $fd>&-" 2>/dev/null ;; esac; done; `;
// dash's redirections reach only 3 to 9.
const closeLowFds = (keep3: boolean) =>
  `for fd in ${keep3 ? "" : "3 "}4 5 6 7 8 9; do eval "exec $fd>&-"; done; `;

/** Whether /bin/bash exists here (read once). */
export const hasBash = existsSync("/bin/bash");

/**
 * The shell that sets the limits, closing first what docket inherited (`inheritedFds`), then
 * `exec`s the rest of its arguments: `sh -c SCRIPT PROCS_FILE MEMORY_KB PROCESSES ARGV…`. With
 * nothing inherited (the usual case) it is dash, the cheapest; otherwise bash, which can close any
 * descriptor. dash alone reaches only 3 to 9: above that, undefined (no launch). With a pids
 * cgroup the same shell first joins it and runs outside, before bwrap (ADR 0051): the memory
 * ceiling passes through bwrap to every process of the call, pids.max bounds their number, and
 * the sandbox starts the command itself, one program fewer per call. Without one it runs first
 * inside the sandbox, where RLIMIT_NPROC counts only the sandbox's processes. `keep3` leaves fd 3
 * open (the network proxy's channel, ADR 0037).
 *
 * @example
 * ```ts
 * const shell = limitsShell(false)?.(true); // ["/bin/sh", "-c", "echo $$ > \"$0\" || exit 125; …"]
 * ```
 */
export function limitsShell(keep3: boolean): ((cgroup: boolean) => string[]) | undefined {
  const script = (cgroup: boolean) =>
    cgroup
      ? `echo $$ > "$0" || exit 125; ${DATA_LIMIT}shift 2; exec "$@"`
      : `${DATA_LIMIT}${PROCESS_LIMIT}shift 2; exec "$@"`;
  const inherited = inheritedFds();
  if (inherited !== undefined && inherited.length === 0)
    return (cgroup) => ["/bin/sh", "-c", script(cgroup)];
  // --norc --noprofile: with a socket as stdin (an MCP server's) bash takes itself for an rsh
  // session and sources ~/.bashrc; with a cgroup this shell runs outside the sandbox, with
  // docket's powers, and must run nothing but this script.
  if (hasBash)
    return (cgroup) => [
      "/bin/bash",
      "--norc",
      "--noprofile",
      "-c",
      closeAllFds(keep3) + script(cgroup),
    ];
  if (inherited === undefined || inherited.some((fd) => fd > 9)) return undefined;
  return (cgroup) => ["/bin/sh", "-c", closeLowFds(keep3) + script(cgroup)];
}
