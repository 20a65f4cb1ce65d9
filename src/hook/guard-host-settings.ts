import { isAbsolute, relative, resolve } from "node:path";
import type { PolicyFunction, PolicyRequest, PolicyVerdict } from "../policy/policy.js";
import { gitTreeRewrite } from "./git-tree-rewrite.js";
import { privateSocketFolderPath } from "./hook-socket.js";
import { hostAdapters } from "./host-registry.js";

// What registers docket with a host, and docket's daemon socket: an agent that could edit these
// could take docket out of its own loop. The host's home-level files count too.
const GUARDED = [
  ...new Set([
    ...hostAdapters().flatMap(({ registration }) => [
      registration.target.file,
      ...registration.alsoGuarded,
    ]),
  ]),
];

/** The daemons' sockets (`.docket/hook.sock` of an earlier docket, `hook-KEY.sock`) and log. */
const DAEMON_FILES = /\.docket\/hook(?:-[0-9a-f]{16})?\.sock|\.docket\/hook-serve\.log/;
const DAEMON_FILES_NAME = ".docket/hook-KEY.sock";

function guardedPath(value: unknown, roots: readonly string[]): string | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  for (const root of roots) {
    const rel = relative(root, isAbsolute(value) ? value : resolve(roots[0] ?? root, value));
    const hit = GUARDED.find((file) => rel === file || rel.startsWith(`${file}/`));
    if (hit) return hit;
    if (rel.startsWith(".docket/hook") && DAEMON_FILES.test(rel)) return DAEMON_FILES_NAME;
  }
  // A long project's sockets (hook-socket.ts): absolute, wherever the call runs.
  const folder = privateSocketFolderPath();
  const absolute = resolve(roots[0] ?? "/", value);
  if (absolute === folder || absolute.startsWith(`${folder}/`)) return folder;
  return undefined;
}

function hostSettingsVote(
  request: PolicyRequest,
  roots: readonly string[],
): PolicyVerdict | undefined {
  const { path, command } = request.tool.policyArgs;
  for (const key of typeof path === "string" ? [path] : (path ?? [])) {
    const hit = guardedPath(request.args[key], roots);
    if (hit) return deny(`${hit} registers docket as the host's hook`);
  }
  if (command) {
    const text = request.args[command];
    // Words only add a deny here; the shell analysis still judges the command as a whole.
    const hit =
      typeof text !== "string"
        ? undefined
        : (GUARDED.find((file) => text.includes(file)) ??
          (DAEMON_FILES.test(text) ? DAEMON_FILES_NAME : undefined) ??
          (text.includes(privateSocketFolderPath()) ? privateSocketFolderPath() : undefined));
    if (hit) return deny(`the command names ${hit}, which registers docket as the host's hook`);
    const rewrite = typeof text === "string" ? gitTreeRewrite(text) : undefined;
    if (rewrite) {
      return deny(
        `${rewrite} rewrites files of the work tree, and could bring or put back the host's settings without docket's hook`,
      );
    }
  }
  return undefined;
}

function deny(reason: string): PolicyVerdict {
  return { decision: "deny", rule: "hook:self-protection", layer: "docket", reason };
}

/**
 * The policy for hook calls: docket's own, and a deny for any call that would touch a host's hook
 * registration (`.claude/settings.json`, `.gemini/settings.json`, `~/.codex/config.toml`,
 * opencode's plugin) or the daemon's socket, whatever the rules allow. Part of the checkpoint's
 * decide step, like the sandbox's confinement: it can only make a verdict stricter.
 *
 * @example
 * ```ts
 * import { homedir } from "node:os";
 * declare const runtime: import("../cli/build-runtime.js").Runtime;
 * const policy = guardHostSettings(runtime.policy, [process.cwd(), homedir()]);
 * ```
 */
export function guardHostSettings(
  engine: { decide: PolicyFunction },
  roots: readonly string[],
): PolicyFunction {
  return (request) => {
    const guarded = hostSettingsVote(request, roots);
    if (guarded) return guarded;
    return engine.decide(request);
  };
}
