/**
 * git runs programs named in configuration (pager, editor, ssh command, aliases starting with
 * `!`, filters, hooks path) and in a few options. An allow rule on `git log *` should not allow
 * `git -c core.pager='rm -rf ~' log`. This reader flags the ways a command line can do that and
 * hands the shell strings it can see (`-c alias.x=!…`, `rebase --exec`, `submodule foreach`)
 * to the analyser so deny rules still reach them.
 */
import { emptyInspection, type Inspection } from "./analysis-sink.js";
import { spellsLongOption } from "./git-long-option.js";
import { gitWrites } from "./git-writes.js";
import { joinWords, type ShellWord, syntheticWord } from "./shell-word.js";

/** Configuration keys whose value is a program, a shell string or a place code is loaded from. */
const EXEC_KEY =
  /^(alias\.|core\.(pager|editor|sshcommand|fsmonitor|hookspath|gitproxy|askpass|attributesfile|alternaterefscommand)|filter\.|diff\.|difftool\.|merge\.|mergetool\.|tar\.|include(if)?\.|credential\.|gpg\.|sequence\.editor|pager\.|uploadpack\.|uploadarchive\.|receive\.|remote\..*\.(uploadpack|receivepack|proxy|vcs)|http\..*proxy|url\.|submodule\.|init\.|hook\.|trailer\.|imap\.|safe\.|web\.browser|help\.browser|browser\.|man\.|instaweb\.|sendemail\.|interactive\.difffilter|protocol\.)/i;

/** Global options taking a separate value. */
const GLOBAL_VALUED = new Set([
  "-C",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--list-cmds",
  "--attr-source",
]);

/** Subcommand options that run a program or write a file. */
const SUBCOMMAND_FLAGS: ReadonlyArray<{ prefix: string; detail: string; write?: boolean }> = [
  { prefix: "--upload-pack", detail: "names the program git runs for the transfer" },
  { prefix: "--receive-pack", detail: "names the program git runs for the transfer" },
  { prefix: "--exec", detail: "runs a program" },
  { prefix: "--extcmd", detail: "runs a program on each file" },
  { prefix: "--open-files-in-pager", detail: "runs a pager program" },
  { prefix: "--to-cmd", detail: "runs a program" },
  { prefix: "--cc-cmd", detail: "runs a program" },
  { prefix: "--sendmail-cmd", detail: "runs a program" },
  { prefix: "--output", detail: "writes a file", write: true },
  { prefix: "--access-hook", detail: "runs a program for each request" },
  { prefix: "--httpd", detail: "runs a web server program" },
  // What the configuration names already runs by default in `git diff`; asked for by name, as
  // Codex also refuses to vouch for them, they are not read through an allow rule.
  { prefix: "--ext-diff", detail: "runs the external diff program the configuration names" },
  { prefix: "--textconv", detail: "runs the conversion programs the configuration names" },
];

/** `git config` options taking a value; the first operand after them is the key. */
const CONFIG_VALUED_LONG = ["file", "blob", "type", "default", "comment", "value"];
const CONFIG_VALUED = {
  test: (word: string) =>
    word === "-f" ||
    word === "-t" ||
    (!word.includes("=") && CONFIG_VALUED_LONG.some((name) => spellsLongOption(word, name))),
};
/** Newer git's `git config set KEY VALUE`, `git config unset KEY` … */
const CONFIG_VERBS = new Set([
  "set",
  "unset",
  "get",
  "list",
  "edit",
  "rename-section",
  "remove-section",
]);

/** `git config`: the key (first operand) must be known, and sections must not be renamed into one that runs code. */
function inspectConfigKey(result: Inspection, words: readonly ShellWord[], start: number): void {
  const operands: ShellWord[] = [];
  for (let i = start; i < words.length; i++) {
    const word = words[i] as ShellWord;
    if (spellsLongOption(word.value, "rename-section") || word.value === "rename-section") {
      result.findings.push({
        reason: "dangerous_flag",
        detail: "git config renaming a section can turn its keys into aliases or hooks",
      });
    }
    if (CONFIG_VALUED.test(word.value)) i++;
    else if (!word.value.startsWith("-") || word.dynamic) operands.push(word);
  }
  const key = CONFIG_VERBS.has(operands[0]?.value ?? "") ? operands[1] : operands[0];
  if (key?.dynamic === true)
    result.findings.push({
      reason: "dangerous_flag",
      detail: "git config sets a key only known at run time, which can name a program git runs",
    });
}

/** `git config` forms that only read. */
const CONFIG_READS = new Set([
  "--get",
  "--get-all",
  "--get-regexp",
  "--get-urlmatch",
  "--list",
  "-l",
  "get",
  "list",
]);

/**
 * Whether `git config` only reads. git stops reading options at the first operand, so
 * `git config alias.x '!cmd' --list` sets alias.x (`--list` is a value pattern there): only a
 * read option before the first operand, or a first operand `get`/`list`, counts.
 */
function configReadsOnly(words: readonly ShellWord[], start: number): boolean {
  for (let i = start; i < words.length; i++) {
    const word = words[i] as ShellWord;
    if (word.dynamic) return false;
    if (CONFIG_READS.has(word.value)) return true;
    if (word.value === "--") return false;
    if (!word.value.startsWith("-")) return false;
    if (CONFIG_VALUED.test(word.value)) i++;
  }
  return false;
}

const FILTERS = /^--(env|tree|index|parent|msg|commit|tag-name)-filter$/;

function valueAfter(words: readonly ShellWord[], i: number): ShellWord | undefined {
  const word = words[i] as ShellWord;
  const eq = word.value.indexOf("=");
  if (eq >= 0) return syntheticWord(word.value.slice(eq + 1), word.start, word.end, word.dynamic);
  return words[i + 1];
}

function inspectConfig(result: Inspection, value: string, at: ShellWord, how: string): void {
  result.findings.push({
    reason: "dangerous_flag",
    detail: `git ${how} sets configuration, which can name programs git runs`,
  });
  const alias = /^alias\.[^=]+=\s*!(.*)$/is.exec(value);
  if (alias?.[1] !== undefined)
    result.scripts.push({
      word: syntheticWord(alias[1], at.start, at.end, at.dynamic),
      label: "git alias",
    });
}

function inspectSubcommand(
  result: Inspection,
  sub: string,
  words: readonly ShellWord[],
  start: number,
): void {
  for (let i = start; i < words.length; i++) {
    const word = words[i] as ShellWord;
    const text = word.value;
    // `git config -- core.pager X` still sets the key: only other subcommands stop at `--`.
    if (text === "--") {
      if (sub === "config") continue;
      break;
    }
    // git accepts any unambiguous prefix of a long option: `--upload=CMD` is `--upload-pack`.
    const flag = SUBCOMMAND_FLAGS.find((f) => spellsLongOption(text, f.prefix.slice(2)));
    if (flag !== undefined) {
      result.findings.push({
        reason: flag.write === true ? "redirect_write" : "dangerous_flag",
        detail: `git ${sub} ${flag.prefix} ${flag.detail}`,
      });
    }
    const shellValue =
      FILTERS.test(text.split("=")[0] as string) ||
      ((sub === "rebase" || sub === "difftool") &&
        (text === "-x" || spellsLongOption(text, "exec") || spellsLongOption(text, "extcmd")));
    if (shellValue) {
      const value = valueAfter(words, i);
      if (flag === undefined)
        result.findings.push({
          reason: "dangerous_flag",
          detail: `git ${sub} ${text} runs a shell command`,
        });
      if (value !== undefined) result.scripts.push({ word: value, label: `git ${sub}` });
    }
    if (sub === "grep" && /^-[A-Za-z]*O/.test(text)) {
      result.findings.push({
        reason: "dangerous_flag",
        detail: "git grep -O runs a pager program",
      });
    }
    if ((sub === "clone" || sub === "init") && spellsLongOption(text, "template")) {
      result.findings.push({
        reason: "dangerous_flag",
        detail: `git ${sub} --template installs hooks that run`,
      });
    }
    if (sub === "clone" && text === "-u") {
      result.findings.push({
        reason: "dangerous_flag",
        detail: "git clone -u names the program git runs for the transfer",
      });
    }
    if (sub === "config" && EXEC_KEY.test(text) && !configReadsOnly(words, start)) {
      // `git config alias.x '!cmd'`: the value is the next word; read it as `alias.x=!cmd`.
      const next = words[i + 1];
      const joined = next === undefined ? text : `${text}=${next.value}`;
      inspectConfig(result, /^alias\./i.test(text) ? joined : text, next ?? word, "config");
    }
    if (
      sub === "clone" &&
      (text === "-c" || spellsLongOption(text, "config") || /^-c./.test(text))
    ) {
      const value =
        text === "-c" || (!text.includes("=") && !/^-c./.test(text))
          ? words[i + 1]
          : syntheticWord(
              text.startsWith("--") ? text.slice(text.indexOf("=") + 1) : text.slice(2),
              word.start,
              word.end,
              word.dynamic,
            );
      inspectConfig(result, value?.value ?? "", value ?? word, "clone -c");
    }
    if (sub === "config" && (text === "-e" || spellsLongOption(text, "edit"))) {
      result.findings.push({
        reason: "dangerous_flag",
        detail: "git config --edit runs an editor",
      });
    }
  }
}

/**
 * Flag git command lines that can run programs or write files beyond what their subcommand
 * suggests.
 *
 * @example
 * ```ts
 * declare const words: (script: string) => import("./shell-word.js").ShellWord[]; // a command's words, as resolved
 * inspectGit(words("git -c core.pager=evil log")).findings[0]?.reason; // "dangerous_flag"
 * inspectGit(words("git log --oneline")).findings.length;              // 0
 * ```
 */
export function inspectGit(words: readonly ShellWord[]): Inspection {
  const result = emptyInspection();
  let i = 1;
  while (i < words.length) {
    const word = words[i] as ShellWord;
    const text = word.value;
    if (text === "-c" || (text.startsWith("-c") && !text.startsWith("--"))) {
      const value =
        text === "-c"
          ? words[i + 1]
          : syntheticWord(text.slice(2), word.start, word.end, word.dynamic);
      inspectConfig(result, value?.value ?? "", value ?? word, "-c");
      i += text === "-c" ? 2 : 1;
    } else if (text.startsWith("--config-env") || text.startsWith("--exec-path=")) {
      result.findings.push({
        reason: "dangerous_flag",
        detail: `git ${text.split("=")[0]} changes what git runs`,
      });
      i += text.includes("=") ? 1 : 2;
    } else if (/^--(work-tree|git-dir)(=|$)/.test(text)) {
      const value = text.includes("=") ? text.slice(text.indexOf("=") + 1) : words[i + 1]?.value;
      result.findings.push(
        text.startsWith("--work-tree")
          ? { reason: "redirect_write", detail: `git writes its work tree at ${value ?? ""}` }
          : {
              reason: "dangerous_flag",
              detail: `git --git-dir reads configuration and hooks from ${value ?? ""}, which can name programs`,
            },
      );
      i += text.includes("=") ? 1 : 2;
    } else if (GLOBAL_VALUED.has(text)) {
      i += 2;
    } else if (text.startsWith("-") || word.dynamic) {
      if (word.dynamic)
        result.findings.push({
          reason: "dangerous_flag",
          detail: "git option known only at run time",
        });
      i++;
    } else {
      break;
    }
  }
  const sub = words[i];
  if (sub === undefined) return result;
  if (sub.value === "submodule" && words.slice(i + 1).some((w) => w.value === "foreach")) {
    const at = words.findIndex((w, k) => k > i && w.value === "foreach");
    let start = at + 1;
    while (words[start]?.value.startsWith("-")) start++;
    const script = joinWords(words.slice(start));
    if (script !== undefined) result.scripts.push({ word: script, label: "git submodule foreach" });
  } else if (sub.value === "bisect" && words[i + 1]?.value === "run" && words.length > i + 2) {
    result.commands.push({ words: words.slice(i + 2), argsFromInput: false });
  }
  inspectSubcommand(result, sub.value, words, i + 1);
  if (sub.value === "config" && !configReadsOnly(words, i + 1))
    inspectConfigKey(result, words, i + 1);
  for (const finding of gitWrites(sub.value, words, i + 1)) result.findings.push(finding);
  return result;
}
