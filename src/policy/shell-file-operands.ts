import type { ShellAnalysis } from "./shell/shell-analysis.js";

// `< f`, `> f`, `>> f`, `2> f`, `&> f`, `<> f`, `>| f`; not `<<` (a here-document's delimiter) nor
// `<<<` (a string), nor `<(` (process substitution, whose commands the analysis already lists).
const REDIRECT = /(?:^|[^<>])(?:\d*|&)(?:<>|>>|>\||<|>)(?!<|\()\s*("[^"]*"|'[^']*'|[^\s;|&()<>]+)/g;
const TOKEN_SPLIT = /[\s;|&()<>`]+/;
const MAX_WORDS = 2048;

/**
 * The words of a shell script that may name files, for `path` rules on `run_command`: every
 * argument that is not an option (and the value of `--opt=value`), of every command the
 * analysis found (nested `bash -c`, `$(…)` included), plus every redirect target (`< .env`,
 * `> out`), which the analysis does not list. Over-inclusive on purpose: `grep SECRET .env`
 * yields `SECRET` too, which only matters if a path rule matches it.
 *
 * @example
 * ```ts
 * import { loadShellParser } from "./shell/shell-parser.js";
 * const parser = await loadShellParser();
 * const script = "grep -n SECRET .env && cat < ~/.ssh/id_rsa";
 * commandFileOperands(script, parser.analyse(script));
 * // ["SECRET", ".env", "~/.ssh/id_rsa"]
 * ```
 */
export function commandFileOperands(script: string, analysis: ShellAnalysis): string[] {
  const words = new Set<string>();
  for (const command of analysis.commands) {
    for (const word of command.argv.slice(1)) {
      if (words.size >= MAX_WORDS) break;
      if (word === "" || word === "-" || word === "--") continue;
      if (word.startsWith("-")) {
        const eq = word.indexOf("=");
        if (eq > 0 && eq < word.length - 1) words.add(word.slice(eq + 1));
        continue;
      }
      words.add(word);
      // A word holding a nested script (`bash -c '…'`, `script -qc '…'`) may redirect too.
      if (/[<>]/.test(word)) for (const target of redirectTargets(word)) words.add(target);
    }
  }
  for (const target of redirectTargets(script)) words.add(target);
  return [...words];
}

/**
 * Every redirect target in a script's text, quotes removed.
 *
 * @example
 * ```ts
 * redirectTargets("while read l; do echo $l; done < .env 2>/dev/null"); // [".env", "/dev/null"]
 * ```
 */
export function redirectTargets(script: string): string[] {
  const targets: string[] = [];
  for (const match of script.matchAll(REDIRECT)) {
    const raw = match[1] ?? "";
    const target = raw.replace(/^["']|["']$/g, "").replace(/["']/g, "");
    if (target !== "" && !target.startsWith("&")) targets.push(target);
  }
  return targets;
}

/**
 * Every token of a script, for the self-protection scan: the raw text split at blanks and shell
 * operators (quotes stripped), plus every argument word the analysis resolved (so `".do"cket`
 * counts as `.docket`).
 *
 * @example
 * ```ts
 * declare const analysis: import("./shell/shell-analysis.js").ShellAnalysis; // of the same script
 * scriptTokens("cd src && cat '../.docket/docket.db'", analysis); // [..., "../.docket/docket.db"]
 * ```
 */
export function scriptTokens(script: string, analysis: ShellAnalysis | undefined): string[] {
  const tokens = new Set<string>();
  const addSplit = (text: string) => {
    for (const part of text.split(TOKEN_SPLIT)) {
      if (tokens.size >= MAX_WORDS) return;
      const token = part.replace(/["'\\]/g, "");
      if (token !== "") tokens.add(token);
      const eq = token.indexOf("=");
      if (eq > 0 && eq < token.length - 1) tokens.add(token.slice(eq + 1));
    }
  };
  addSplit(script);
  for (const command of analysis?.commands ?? []) {
    for (const word of command.argv) {
      if (tokens.size >= MAX_WORDS) break;
      tokens.add(word);
      addSplit(word);
    }
  }
  return [...tokens];
}
