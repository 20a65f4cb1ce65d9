import * as path from "node:path";

/** bwrap options that make a host path visible (and, for the bind forms, writable) inside. */
const BINDING = new Set(["--bind", "--bind-try", "--dev-bind", "--dev-bind-try"]);

/**
 * Whether a host path lies inside a folder a bwrap argument list binds writable into the
 * sandbox. docket keeps files that steer what runs outside the sandbox (a parked launcher's
 * argument file) only where this is false: a command could otherwise rewrite what the next
 * launch runs, unconfined. Both paths are compared as given; pass real paths.
 *
 * @example
 * ```ts
 * boundIntoSandbox("/work/app/tmp/x", ["--bind", "/work/app", "/work/app"]); // true
 * boundIntoSandbox("/tmp/docket-launch-1/argv-1", ["--bind", "/work/app", "/work/app"]); // false
 * ```
 */
export function boundIntoSandbox(hostPath: string, argv: readonly string[]): boolean {
  for (let i = 0; i + 1 < argv.length; i += 1) {
    if (!BINDING.has(argv[i] as string)) continue;
    const relative = path.relative(argv[i + 1] as string, hostPath);
    if (relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative))) return true;
  }
  return false;
}
