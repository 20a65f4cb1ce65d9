/**
 * A POSIX sh script that runs a stdio server (its arguments) and ends its whole process group
 * when docket goes away, even by SIGKILL: docket holds the write end of a pipe on the script's
 * fd 3 and never writes to it, so a `read` from it returns only when every docket-side copy is
 * closed, which the kernel does for a dead process. The server itself gets stdin, stdout and
 * stderr as they are (no copying), without fd 3. When the server exits on its own, the script
 * exits the same way (by the same signal, so docket sees what happened).
 *
 * Background jobs of a non-interactive shell read /dev/null unless told otherwise: stdin is
 * handed to the server explicitly. The watcher ignores the TERM it sends its group, so that the
 * KILL two seconds later reaches a server that ignores TERM; only then, so that docket's own
 * TERM to the group (closing the server) ends the watcher at once.
 */
const SCRIPT = `exec 4<&0
"$@" <&4 4<&- 3<&- &
server=$!
exec 4<&-
( read -r _ <&3; trap "" TERM; kill -TERM 0; sleep 2; kill -KILL 0 ) </dev/null >/dev/null 2>&1 &
watcher=$!
exec 3<&-
wait "$server"
status=$?
kill "$watcher" 2>/dev/null
if [ "$status" -gt 128 ]; then
  trap - "$(kill -l "$status")" 2>/dev/null
  kill -s "$(kill -l "$status")" $$
fi
exit "$status"`;

/** The descriptor (in the child) of the pipe whose end tells the watchdog docket is gone. */
export const WATCH_FD = 3;

/**
 * Wrap a command in the watchdog: spawn `file` with `args`, and give the child a pipe on fd 3
 * (`stdio: ["pipe", "pipe", "pipe", "pipe"]`) that docket keeps open and never writes to.
 *
 * @example
 * ```ts
 * import { spawn } from "node:child_process";
 * const { file, args } = withParentWatchdog("mcp-server-everything", ["stdio"]);
 * spawn(file, args, { stdio: ["pipe", "pipe", "pipe", "pipe"], detached: true });
 * ```
 */
export function withParentWatchdog(
  command: string,
  args: readonly string[],
): { file: string; args: string[] } {
  return { file: "/bin/sh", args: ["-c", SCRIPT, "docket-watchdog", command, ...args] };
}
