import * as path from "node:path";
import picomatch from "picomatch";
import type { DocketOwnFiles, OwnFile } from "../protect/docket-own-files.js";
import { BUILTIN_TOOL_META } from "./builtin-tool-meta.js";
import type { CallView } from "./call-view.js";
import { unpacksAbove } from "./extraction-dirs.js";
import { folderBases } from "./folder-bases.js";
import { GLOB_CHARS, type GlobReach } from "./glob-reach.js";
import { invokesDocket } from "./invokes-docket.js";
import { globAbove, globHit, globReaching, treeHolding } from "./own-file-globs.js";
import type { PolicyVote } from "./policy-vote.js";
import { recursiveCopyWords } from "./recursive-copy-words.js";
import { expandHome } from "./resolve-policy-path.js";
import { deny, denyCli } from "./self-protection-deny.js";
import type { ShellAnalysis } from "./shell/shell-analysis.js";
import { redirectTargets, scriptTokens } from "./shell-file-operands.js";
import { wordInFolders } from "./word-in-folders.js";

export { SELF_PROTECTION_RULE } from "./self-protection-deny.js";

/** What the self-protection vote guards. */
export interface SelfProtection {
  /** docket's own files (store, docket.yaml, policy files, audit key, `.docket/`, …). */
  readonly ownFiles: DocketOwnFiles;
  /** Files and folders that are docket's CLI (`dist/src/cli/`): running them is refused. */
  readonly cliPaths?: readonly string[];
  /**
   * docket's installed code (see `docketCodeDir`): readable, since a project may use it, but no
   * tool may change it, or what an agent wrote there would run as docket next time.
   */
  readonly codeFiles?: DocketOwnFiles;
}

// Programs that only read the files they are given: naming docket's code to them changes nothing.
// None has an option that writes a file or runs a program (`tree -o`, `sort -o`, `uniq IN OUT`,
// `file -C` and `rg --pre` do, so they are not here).
const READ_ONLY_PROGRAMS = new Set([
  "cat",
  "ls",
  "head",
  "tail",
  "grep",
  "egrep",
  "fgrep",
  "wc",
  "stat",
  "diff",
  "cmp",
  "du",
  "realpath",
  "readlink",
  "md5sum",
  "sha1sum",
  "sha256sum",
  "echo",
  "printf",
  "pwd",
  "jq",
  "cut",
  "nl",
  "basename",
  "dirname",
]);
// What makes a script's reads unsure: any redirect, a change of folder, a variable assignment
// (`PATH=.`), a function or subshell, a substitution or variable.
const UNSURE_SCRIPT =
  /[<>()`$\\{}]|(^|[\s;&|])(cd|pushd|popd|alias|function|source|\.)(\s|$)|(^|[\s;&|])[A-Za-z_][A-Za-z0-9_]*=/;

const MAX_STRINGS = 256;
const MAX_STRING_CHARS = 4096;
// Where a free-text argument is cut into words that may be paths (`attach .docket/docket.db`,
// `db=.docket/docket.db`, `"docket.yaml"`).
const WORD_BREAK = /[\s=,;|&<>()'"`]+/;

/**
 * The self-protection vote: a deny from layer `docket` that sorts before every rule, cast when a
 * call names one of docket's own files or runs docket's CLI. It looks at the declared path
 * arguments, at every token and analysed word of a `command` argument, and, for tools other than
 * the built-in ones (MCP and custom tools), at every string in the arguments. Undefined when the
 * call touches none of them.
 *
 * @example
 * ```ts
 * declare const view: import("./call-view.js").CallView; // run_command `cat .docket/docket.db`
 * declare const ownFiles: import("../protect/docket-own-files.js").DocketOwnFiles;
 * const analysis = view.analysis();
 * selfProtectionVote(view, { ownFiles }, { workspace: "/ws", home: "/home/ada" }, analysis)?.decision; // "deny"
 * ```
 */
export function selfProtectionVote(
  view: CallView,
  protection: SelfProtection,
  where: { readonly workspace: string; readonly home: string },
  analysis: ShellAnalysis | undefined,
): PolicyVote | undefined {
  // One decision's lookups share their folders' real paths.
  const memo = new Map<string, string>();
  const check = (text: string, dot = true) =>
    findOwn(text, protection.ownFiles, where, memo, { dot });
  for (const target of view.paths() ?? []) {
    const hit = protection.ownFiles.find(target.absolute, memo) ?? check(target.input);
    if (hit !== undefined) return deny(target.input, hit);
  }
  const command = view.command()?.value;
  if (typeof command === "string") {
    const dot = !bashGlobs(command, analysis);
    const cli = invokesDocket(analysis, {
      workspace: where.workspace,
      cliPaths: protection.cliPaths,
    });
    if (cli !== undefined) return denyCli(cli);
    // Each word is read in every folder the script may be in (`cd ~ && cp x .config/docket/…`).
    const folders = folderBases(analysis, where.home, command);
    for (const token of scriptTokens(command, analysis)) {
      const hit = wordInFolders(token, folders, protection.ownFiles, (text, expanded) =>
        check(text, dot && !expanded),
      );
      if (hit !== undefined) return deny(token, hit);
    }
    for (const own of [protection.ownFiles, protection.codeFiles]) {
      const hit = own === undefined ? undefined : unpacksAbove(analysis, folders.dirs, own, where);
      if (hit !== undefined) return deny(command, hit, "unpack");
    }
  }
  const code = protection.codeFiles;
  if (code !== undefined) {
    const changed = changesCode(view, code, where, memo, command, analysis);
    if (changed !== undefined) return deny(changed.text, changed.hit, "change");
  }
  // Moving, replacing or removing a folder that holds docket's own files (`mv ~/.config x`,
  // `cp -r fake/. ~/.config`) changes them without naming them.
  const above = changesCode(view, protection.ownFiles, where, memo, command, analysis, {
    aboveOnly: true,
  });
  if (above !== undefined) return deny(above.text, above.hit, "hold");
  // A tree copied, archived or searched whole from above docket's own files (`cp -r ~ hh`,
  // `tar -cf h.tar ~`) takes them along, even from the home folder.
  if (typeof command === "string") {
    for (const word of recursiveCopyWords(analysis)) {
      const hit = treeHolding(word, protection.ownFiles, where);
      if (hit !== undefined) return deny(word, hit, "copy");
    }
  }
  // Built-in tools are judged by their declared arguments (write_file's content is free text);
  // any other tool (MCP, custom) by every string it is given, keys included.
  if (!Object.hasOwn(BUILTIN_TOOL_META, view.request.tool.name)) {
    for (const text of stringsIn(view.request.args)) {
      const tokens = WORD_BREAK.test(text) ? [text, ...text.split(WORD_BREAK)] : [text];
      for (const token of tokens) {
        const hit = check(fromFileUrl(token));
        if (hit !== undefined) return deny(token, hit);
      }
    }
  }
  return undefined;
}

/**
 * The argument by which a call would change docket's code: a declared path of a tool that
 * writes; for a command, a redirect into it, or any word naming it unless every program of the
 * script only reads (an unparsed script counts as one that writes); any string of another tool
 * that writes.
 */
function changesCode(
  view: CallView,
  code: DocketOwnFiles,
  where: { readonly workspace: string; readonly home: string },
  memo: Map<string, string>,
  command: unknown,
  analysis: ShellAnalysis | undefined,
  { aboveOnly = false }: { aboveOnly?: boolean } = {},
): { readonly text: string; readonly hit: OwnFile } | undefined {
  const check = (raw: string) => {
    // The shell starts in the workspace: `$PWD/…` and `~+/…` are paths there.
    const text = raw.replace(/^(\$\{?PWD\}?|~\+)(?=\/|$)/, where.workspace);
    if (aboveOnly) return folderAbove(text, code, where) ?? globAbove(text, code, where);
    return (
      findOwn(text, code, where, memo, { globs: false }) ??
      globReaching(text, code, where) ??
      folderAbove(text, code, where)
    );
  };
  const writes = view.request.tool.writes;
  if (writes) {
    for (const target of view.paths() ?? []) {
      const hit = code.find(target.absolute, memo) ?? check(target.input);
      if (hit !== undefined) return { text: target.input, hit };
    }
  }
  if (typeof command === "string") {
    for (const target of redirectTargets(command)) {
      const hit = check(target);
      if (hit !== undefined) return { text: target, hit };
    }
    // After `cd node_modules`, `docket/dist/x` is inside docket's folder.
    const folders = folderBases(analysis, where.home, command);
    for (const token of changingWords(command, analysis)) {
      const hit = wordInFolders(token, folders, aboveOnly ? undefined : code, check);
      if (hit !== undefined) return { text: token, hit };
    }
  }
  if (writes && !Object.hasOwn(BUILTIN_TOOL_META, view.request.tool.name)) {
    for (const text of stringsIn(view.request.args)) {
      const tokens = WORD_BREAK.test(text) ? [text, ...text.split(WORD_BREAK)] : [text];
      for (const token of tokens) {
        const hit = check(fromFileUrl(token));
        if (hit !== undefined) return { text: token, hit };
      }
    }
  }
  return undefined;
}

/**
 * A folder holding one of `own`'s entries (`node_modules`, `~/.config`): moving, replacing or
 * removing it would take them with it. Not the workspace, the home folder or what holds them.
 */
const namesOf = new WeakMap<DocketOwnFiles, Set<string>>();

/** Every folder name on the paths of `own`'s entries, lower-cased. */
function folderNames(own: DocketOwnFiles): Set<string> {
  let names = namesOf.get(own);
  if (names === undefined) {
    names = new Set(own.entries.flatMap((entry) => entry.path.toLowerCase().split(path.sep)));
    namesOf.set(own, names);
  }
  return names;
}

function folderAbove(
  word: string,
  own: DocketOwnFiles,
  where: { readonly workspace: string; readonly home: string },
): OwnFile | undefined {
  if (word === "" || word.length > MAX_STRING_CHARS || word.startsWith("-") || word.includes("\0"))
    return undefined;
  // The shell expands `$HOME` and `${HOME}` as it does `~`.
  const raw = word.replace(/^\$\{?HOME\}?(?=[\\/]|$)/, "~");
  // This runs for every word of every command: a word whose last name is no folder on the way
  // to an entry is dismissed before any path is built.
  const last =
    raw
      .replace(/[\\/]+$/, "")
      .split(/[\\/]/)
      .at(-1)
      ?.toLowerCase() ?? "";
  if (last !== "" && last !== "." && last !== ".." && !last.startsWith("~")) {
    if (!folderNames(own).has(last)) return undefined;
  }
  const absolute = path.resolve(where.workspace, expandHome(raw, where.home)).toLowerCase();
  const below = `${absolute}${path.sep}`;
  const entry = own.entries.find((e) => e.path.toLowerCase().startsWith(below));
  if (entry === undefined) return undefined;
  // The workspace, the home folder and what holds them hold everything: naming them (`cd ..`,
  // `ls ~`) is not aimed at docket.
  const holds = (dir: string) => {
    const lower = dir.toLowerCase();
    return lower === absolute || lower.startsWith(below) || absolute === path.sep;
  };
  return holds(where.workspace) || holds(where.home) ? undefined : entry;
}

/**
 * The words of a script that may name a file it changes: those of every command but a reader
 * (`cat`, `grep`, … by their bare name), so `grep -rn x node_modules/docket | sort` reads in
 * peace; every word of a script the analysis is unsure of or that has any redirect, `cd`,
 * assignment, substitution or function.
 */
function changingWords(script: string, analysis: ShellAnalysis | undefined): string[] {
  if (analysis === undefined || analysis.uncertainties.length > 0 || UNSURE_SCRIPT.test(script)) {
    return scriptTokens(script, analysis);
  }
  const words: string[] = [];
  for (const command of analysis.commands) {
    if (READ_ONLY_PROGRAMS.has(command.program)) continue;
    for (const word of command.argv) words.push(word, ...word.split(WORD_BREAK));
  }
  return words.filter((word) => word !== "");
}

function findOwn(
  raw: string,
  own: DocketOwnFiles,
  where: { readonly workspace: string; readonly home: string },
  memo: Map<string, string>,
  { globs = true, dot = true }: { globs?: boolean; dot?: boolean } = {},
): OwnFile | undefined {
  if (raw === "" || raw.length > MAX_STRING_CHARS || raw.includes("\0")) return undefined;
  // An option (`-la`, `--short`) is not a file; `--file=PATH` reaches here as PATH alone.
  if (raw.startsWith("-") || /^\d+$/.test(raw)) return undefined;
  const text = expandHome(raw.replace(/^\$\{?HOME\}?(?=\/|$)/, "~"), where.home);
  const parts = text.toLowerCase().split(/[\\/]+/);
  const absolute = path.resolve(where.workspace, text);
  // Relative to the workspace (where the tools work) and to docket's own directory (where an
  // MCP server started by docket resolves it), when the two differ.
  const fromCwd = path.resolve(own.cwd, text);
  const hit =
    own.find(absolute, memo) ?? (fromCwd === absolute ? undefined : own.find(fromCwd, memo));
  if (hit !== undefined) return hit;
  // A `.docket` folder anywhere, however reached (`cd sub && cat ../.docket/docket.db`).
  if (parts.includes(".docket")) {
    return own.entries.find((entry) => entry.what === "docket's state folder") ?? stateFolder();
  }
  if (parts[0] === ".." || parts.includes("..")) {
    // `cat ../docket.yaml` from a subdirectory: judged by name, since the shell's cwd may differ.
    const base = parts.at(-1) ?? "";
    const named = own.entries.find(
      (entry) => entry.kind === "file" && path.basename(entry.path).toLowerCase() === base,
    );
    if (named !== undefined) return named;
  }
  if (globs && GLOB_CHARS.test(text)) {
    // Segment by segment, so a pattern reaching below a protected folder counts
    // (`~/.config/dock?t/cache/code/*`), not only one matching its listed path.
    const inside = (reach: GlobReach) => reach.type !== "above";
    const test = picomatch(absolute, { dot: true, nocase: true });
    return (
      own.entries.find((entry) => test(entry.path)) ??
      globHit(absolute, own, inside, { dot }) ??
      (fromCwd === absolute ? undefined : globHit(fromCwd, own, inside, { dot }))
    );
  }
  return undefined;
}

// What may make a script's patterns match dot names, or hand them unexpanded to a program
// that does (a quoted or escaped pattern, another shell, a glob option): then `*` may be `.docket`.
// `shopt`, `set`, `eval`, `source`, `.` and another bash may switch `dotglob` on by a pattern
// (`shopt -s dotglo?`), so any of them counts too.
const DOT_GLOBS =
  /["'\\]|dotglob|globdots|glob_dots|GLOBIGNORE|zsh|fish|\bsh\b|find|python|node|\b(shopt|set|eval|source|bash|exec|builtin|command)\b|(^|[\s;&|(])\.(\s|$)/i;

/**
 * Whether every pattern of a script is expanded by bash as it starts, without `dotglob`: then
 * `*` and `?` at the start of a name never match a dot (`cat *\/package.json` is not `.docket`).
 */
function bashGlobs(script: string, analysis: ShellAnalysis | undefined): boolean {
  // A command whose name is an expansion (`${x}pt -s dotglo?`) may be `shopt` too.
  const dynamic = analysis?.uncertainties.some((u) =>
    ["dynamic_command", "eval", "source", "alias", "re_evaluation"].includes(u.reason),
  );
  return !dynamic && !DOT_GLOBS.test(script);
}

/** `file:///ws/%2Edocket/docket.db` is the path `/ws/.docket/docket.db`. */
function fromFileUrl(text: string): string {
  if (!/^file:\/\//i.test(text)) return text;
  const rest = text.slice("file://".length).replace(/^localhost(?=\/)/i, "");
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
}

function stateFolder(): OwnFile {
  return { path: ".docket", kind: "directory", what: "docket's state folder" };
}

/** Every string in the arguments, keys included, breadth-bounded. */
function stringsIn(value: unknown): string[] {
  const out: string[] = [];
  const queue: unknown[] = [value];
  while (queue.length > 0 && out.length < MAX_STRINGS) {
    const item = queue.shift();
    if (typeof item === "string") out.push(item);
    else if (Array.isArray(item)) queue.push(...item.slice(0, MAX_STRINGS));
    else if (typeof item === "object" && item !== null) {
      for (const [key, inner] of Object.entries(item).slice(0, MAX_STRINGS)) {
        out.push(key);
        queue.push(inner);
      }
    }
  }
  return out;
}
