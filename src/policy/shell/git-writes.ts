/**
 * git subcommands that write where an argument says: `git archive -o FILE`, `git bundle create
 * FILE`, `git format-patch -o DIR`, `git worktree add PATH`, `git clone URL PATH`, `git init
 * PATH`, `git config -f FILE` … An allow rule on `git *` should not let them write over
 * `~/.bashrc`, so each is reported like an output redirect (`redirect_write`), naming the path.
 */
import type { Finding } from "./analysis-sink.js";
import { spellsLongOption } from "./git-long-option.js";
import type { ShellWord } from "./shell-word.js";

/** Long options (without dashes) that name a file or directory the subcommand writes. */
const OUTPUT_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  archive: ["output"],
  "format-patch": ["output-directory"],
  bugreport: ["output-directory"],
  diagnose: ["output-directory"],
  config: ["file"],
  clone: ["separate-git-dir"],
  init: ["separate-git-dir"],
  "checkout-index": ["prefix"],
  "fast-import": ["export-marks", "export-pack-edges"],
  "fast-export": ["export-marks"],
};
/** Short options that name what is written. */
const OUTPUT_SHORT: Readonly<Record<string, string>> = {
  archive: "o",
  "format-patch": "o",
  bugreport: "o",
  diagnose: "o",
  config: "f",
};
/** Options of clone, init and worktree add that take a separate value (so are not the path). */
const VALUED =
  /^-([obucj]|-(origin|branch|upload-pack|reference|reference-if-able|depth|shallow-since|shallow-exclude|config|jobs|filter|server-option|template|separate-git-dir|bundle-uri|reason|object-format|ref-format|initial-branch|shared))$/;
const VALUED_SHORT_WORKTREE = /^-[bB]$/;

// git accepts unambiguous prefixes (`--outp`, `--o`): see spellsLongOption.
const isLong = spellsLongOption;

function written(sub: string, path: string): Finding {
  return { reason: "redirect_write", detail: `git ${sub} writes to ${path}` };
}

/** The operands (non-options) from `start`, skipping the values of valued options. */
function operands(words: readonly ShellWord[], start: number, valued: RegExp): ShellWord[] {
  const found: ShellWord[] = [];
  for (let i = start; i < words.length; i++) {
    const text = (words[i] as ShellWord).value;
    if (text === "--") {
      // One at a time: a command may hold more words than a spread's arguments can.
      for (let j = i + 1; j < words.length; j++) found.push(words[j] as ShellWord);
      break;
    }
    if (!text.startsWith("-") || text === "-") found.push(words[i] as ShellWord);
    else if (valued.test(text)) i++;
  }
  return found;
}

function outputOptions(sub: string, words: readonly ShellWord[], start: number): Finding[] {
  const findings: Finding[] = [];
  const longs = OUTPUT_OPTIONS[sub] ?? [];
  const short = OUTPUT_SHORT[sub];
  for (let i = start; i < words.length; i++) {
    const text = (words[i] as ShellWord).value;
    if (text === "--") break;
    const eq = text.indexOf("=");
    const long = longs.find((name) => isLong(text, name));
    if (long !== undefined) {
      findings.push(written(sub, eq >= 0 ? text.slice(eq + 1) : (words[i + 1]?.value ?? "")));
    } else if (short !== undefined && new RegExp(`^-[A-Za-z]*${short}`).test(text)) {
      const attached = text.slice(text.indexOf(short) + 1);
      findings.push(written(sub, attached !== "" ? attached : (words[i + 1]?.value ?? "")));
    }
  }
  return findings;
}

/**
 * What a git subcommand writes where an argument says, as `redirect_write` findings.
 * `start` is the index of the first word after the subcommand.
 *
 * @example
 * ```ts
 * declare const words: (script: string) => import("./shell-word.js").ShellWord[]; // a command's words, as resolved
 * gitWrites("archive", words("git archive -o x.tar HEAD"), 2)[0]?.detail; // "git archive writes to x.tar"
 * gitWrites("log", words("git log -5"), 2).length;                        // 0
 * ```
 */
export function gitWrites(sub: string, words: readonly ShellWord[], start: number): Finding[] {
  const findings = outputOptions(sub, words, start);
  if (sub === "bundle" && words[start]?.value === "create") {
    const [file] = operands(words, start + 1, /^--$/);
    if (file !== undefined) findings.push(written(sub, file.value));
  } else if (sub === "worktree" && words[start]?.value === "add") {
    const [path] = operands(words, start + 1, VALUED_SHORT_WORKTREE);
    if (path !== undefined) findings.push(written("worktree add", path.value));
  } else if (sub === "clone") {
    const [, path] = operands(words, start, VALUED);
    if (path !== undefined) findings.push(written(sub, path.value));
  } else if (sub === "init") {
    const [path] = operands(words, start, VALUED);
    if (path !== undefined) findings.push(written(sub, path.value));
  } else if (sub === "submodule" && words[start]?.value === "add") {
    const [, path] = operands(words, start + 1, VALUED);
    if (path !== undefined) findings.push(written("submodule add", path.value));
  }
  return findings;
}
