import { readFileSync } from "node:fs";
import * as path from "node:path";
import { parseJson } from "../shared/parse-json.js";
import { realPath } from "./resolve-policy-path.js";
import type { ShellAnalysis } from "./shell/shell-analysis.js";

// Programs that run another program named in their arguments (package runners, interpreters
// and wrappers the analysis may not unwrap). Any of their words naming docket counts.
const RUNNERS = new Set([
  "npx",
  "pnpx",
  "bunx",
  "pnpm",
  "yarn",
  "npm",
  "node",
  "nodejs",
  "tsx",
  "ts-node",
  "bun",
  "deno",
  "exec",
  "env",
  "command",
  "nohup",
  "timeout",
  "nice",
  "ionice",
  "sudo",
  "doas",
  "xargs",
  "time",
  "stdbuf",
  "setsid",
  "script",
  "watch",
  "busybox",
  "flock",
  "chrt",
  "taskset",
  "unbuffer",
]);

/**
 * Whether an analysed script runs docket's own CLI: a command named `docket` (at any depth:
 * `bash -c`, `script -qc`, `$(…)`), or a runner (`npx`, `node`, `env`, `sudo`, …) given
 * `docket`, `docket@VERSION`, a path into `node_modules/docket` or one of `cliPaths` (docket's
 * `dist/src/cli/` when known). Returns the command and the word that named docket.
 *
 * @example
 * ```ts
 * import { loadShellParser } from "./shell/shell-parser.js";
 * const parser = await loadShellParser();
 * invokesDocket(parser.analyse("npx docket approvals approve apr_1 --as me"), { workspace: "/ws" });
 * // { command: "npx docket approvals approve apr_1 --as me", word: "docket" }
 * ```
 */
export function invokesDocket(
  analysis: ShellAnalysis | undefined,
  where: { readonly workspace: string; readonly cliPaths?: readonly string[] | undefined },
): { readonly command: string; readonly word: string } | undefined {
  const cli = (where.cliPaths ?? []).map((entry) => realPath(path.resolve(entry)).toLowerCase());
  for (const command of analysis?.commands ?? []) {
    const program = baseName(command.program);
    if (namesDocket(command.program, program, where.workspace, cli)) {
      return { command: command.text, word: command.program };
    }
    if (!RUNNERS.has(program)) continue;
    for (const word of command.argv.slice(1)) {
      if (namesDocket(word, baseName(word), where.workspace, cli)) {
        return { command: command.text, word };
      }
    }
  }
  return undefined;
}

function baseName(word: string): string {
  return path.posix.basename(word.replace(/\\/g, "/")).toLowerCase();
}

function namesDocket(
  word: string,
  base: string,
  workspace: string,
  cli: readonly string[],
): boolean {
  if (/^docket(\.c?js|\.mjs|\.cmd|\.ps1)?$/.test(base) || /^docket@/.test(base)) return true;
  const lower = word.toLowerCase().replace(/\\/g, "/");
  if (lower.includes("node_modules/docket/") || lower.includes("node_modules/.bin/docket")) {
    return true;
  }
  // Only a word with a slash names a file; a bare name is looked up on PATH (checked above).
  if (!word.includes("/") || word.includes("\0") || word.length > 4096) return false;
  const real = realPath(path.resolve(workspace, word));
  const lowerReal = real.toLowerCase();
  if (cli.some((entry) => lowerReal === entry || lowerReal.startsWith(`${entry}/`))) return true;
  // Another checkout or copy of docket (`node dist/src/cli/main.js` in docket's own repository).
  const root = /^(.*?)\/(?:dist\/)?src\/cli(?:\/|$)/.exec(real)?.[1];
  return root !== undefined && isDocketPackage(root);
}

function isDocketPackage(dir: string): boolean {
  try {
    const pkg = parseJson(readFileSync(path.join(dir, "package.json"), "utf8")) as {
      name?: unknown;
    };
    return pkg.name === "docket";
  } catch {
    return false;
  }
}
