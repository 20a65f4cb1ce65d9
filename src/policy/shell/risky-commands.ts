/**
 * Flags and arguments known to make an otherwise tame command run a program or write a file.
 * An allow rule written for reading (`find *`, `sort *`, `git log *`) must not allow
 * `find . -delete`, `sort -o ~/.bashrc` or `git -c core.pager=… log`, so each of these is an
 * uncertainty and the command is at least asked about. This file is the documented list.
 *
 * How a flag is written in the table: `-x` matches in any cluster of short options (`-sSo`);
 * `--name` matches `--name` and `--name=…`; `-name` (one dash, several letters, find-style)
 * matches that word or `-name=…`. `harmless` values (`/dev/null`, `-`) make a write flag fine.
 * For a program in the table, an unquoted word whose start comes from a glob or an expansion
 * (`rg foo *`, `rg $OPTS`) before `--` is a finding too: it may expand into one of the flags.
 *
 * | command | flags | why |
 * | --- | --- | --- |
 * | find | -delete; -fprint -fprint0 -fprintf -fls | deletes; writes (`-exec` & co.: see wrappers.ts) |
 * | rg | --pre --hostname-bin; -z --search-zip | runs a program (a preprocessor, the host-name program, decompressors) |
 * | fd fdfind | -x --exec -X --exec-batch | runs a program for each match |
 * | tree | -o | writes a file |
 * | file | -C --compile | writes a compiled magic file |
 * | time | -o --output | writes a file |
 * | tar | --checkpoint-action --to-command -I --use-compress-program -F --info-script --new-volume-script --rsh-command --rmt-command | runs a program |
 * | sort | -o --output; --compress-program | writes; runs a program |
 * | zip | -TT --unzip-command | runs a program |
 * | curl | -o -O --output --remote-name(-all) -D --dump-header -c --cookie-jar --trace(-ascii) --libcurl --output-dir --etag-save; -K --config | writes; reads options from a file |
 * | wget | -e --execute --use-askpass | runs commands / a program |
 * | rsync | -e --rsh --rsync-path | runs a program |
 * | scp sftp | -S -F, `-o ProxyCommand=…` | runs a program |
 * | ssh | -F, `-o ProxyCommand/LocalCommand/KnownHostsCommand/PermitLocalCommand/Match` | runs a program locally |
 * | man | -P --pager -H --html | runs a program |
 * | less | -o -O --log-file --LOG-FILE | writes |
 * | vi vim nvim view vimdiff ex gvim | -c --cmd -S -s, `+cmd` | runs editor commands (`:!…`) |
 * | emacs | --eval -l --load -f --funcall --script -x | runs Lisp |
 * | gdb | -ex -iex -x -ix --eval-command --init-eval-command --command --init-command | runs debugger commands (`shell …`) |
 * | make | --eval -E | runs make code |
 * | go | -exec -toolexec | runs a program |
 * | cargo | --config | can set runners and wrappers |
 * | npm npx pnpm yarn | --script-shell --shell --node-options --editor --browser --viewer --git --onload-script --init-module; --userconfig --globalconfig --prefix --use-yarnrc --rc-filename, `--config.KEY` | names a program to run; loads a configuration file (which can name one) |
 * | eslint | --rulesdir --resolve-plugins-relative-to --plugin | loads rule or plugin code from a path |
 * | prettier | --plugin | loads plugin code |
 * | wget | --config | reads a wgetrc, which can run commands |
 * | prettier eslint biome gofmt ruff yq perl | --write -w --fix --apply(-unsafe) -i --inplace | rewrites files |
 * | nc ncat netcat | -e -c --exec --sh-exec --lua-exec | runs a program on a socket |
 * | socat | `EXEC:` / `SYSTEM:` addresses | runs a program |
 * | tmux | run-shell new(-session) new-window split-window send-keys respawn-* pipe-pane if-shell display-popup | runs shell commands |
 * | screen | -X, -m | runs commands |
 * | crontab | anything but -l | installs jobs that run later |
 * | sqlite3 | `.shell` `.system` `.output` `.once` `.load` `.import` | runs programs, writes, loads code |
 * | tee | file operands | writes |
 * | dd | `of=FILE` | writes |
 * | sed | -i --in-place, -f --file; scripts with `e`, `w`, `W`, `s///e`, `s///w` | writes; runs commands (see sed-script.ts) |
 * | awk gawk mawk nawk busybox-awk | programs with `system(`, pipes, `@load`, `print > file`; -l --load | runs programs; writes (see awk-program.ts) |
 * | git | -c --config-env --exec-path=, config keys naming programs, --upload-pack --receive-pack --exec --extcmd -O --output … | see git-risks.ts |
 */
import { emptyInspection, type Finding, type Inspection } from "./analysis-sink.js";
import { inspectGit } from "./git-risks.js";
import {
  inspectAwk,
  inspectDd,
  inspectSed,
  inspectSqlite,
  inspectSshOptions,
  inspectTee,
  inspectVim,
} from "./risky-inspectors.js";
import type { UncertaintyReason } from "./shell-analysis.js";
import { isUncertainWord, type ShellWord } from "./shell-word.js";

/** One row of the risky-flag table. */
export interface RiskyFlag {
  readonly flags: readonly string[];
  readonly reason: UncertaintyReason;
  readonly detail: string;
  readonly harmless?: readonly string[];
}

const TO_NOWHERE = ["-", "/dev/null", "/dev/stdout", "/dev/stderr"];
const runs = (detail: string, ...flags: string[]): RiskyFlag => ({
  flags,
  reason: "dangerous_flag",
  detail,
});
const writes = (detail: string, ...flags: string[]): RiskyFlag => ({
  flags,
  reason: "redirect_write",
  detail,
  harmless: TO_NOWHERE,
});
const code = (detail: string, ...flags: string[]): RiskyFlag => ({
  flags,
  reason: "inline_code",
  detail,
});
const rewrites = (...flags: string[]): RiskyFlag => runs("rewrites files in place", ...flags);

/** The table, keyed by program base name. */
export const RISKY_FLAGS: Readonly<Record<string, readonly RiskyFlag[]>> = {
  find: [
    runs("deletes files", "-delete"),
    writes("writes a file", "-fprint", "-fprint0", "-fprintf", "-fls"),
  ],
  rg: [
    runs("runs a preprocessor program on every file", "--pre"),
    runs("runs the named program to learn the host name", "--hostname-bin"),
    runs("runs decompression programs", "-z", "--search-zip"),
  ],
  fd: [runs("runs a program for each match", "-x", "--exec", "-X", "--exec-batch")],
  tree: [writes("writes a file", "-o")],
  file: [writes("writes a compiled magic file", "-C", "--compile")],
  time: [writes("writes a file", "-o", "--output")],
  tar: [
    runs(
      "runs a program",
      "--checkpoint-action",
      "--to-command",
      "-I",
      "--use-compress-program",
      "-F",
      "--info-script",
      "--new-volume-script",
      "--rsh-command",
      "--rmt-command",
    ),
  ],
  sort: [
    writes("writes a file", "-o", "--output"),
    runs("runs a compression program", "--compress-program"),
  ],
  zip: [runs("runs a program to test the archive", "-TT", "--unzip-command")],
  curl: [
    writes(
      "writes a file",
      "-o",
      "-O",
      "--output",
      "--remote-name",
      "--remote-name-all",
      "-D",
      "--dump-header",
      "-c",
      "--cookie-jar",
      "--trace",
      "--trace-ascii",
      "--libcurl",
      "--output-dir",
      "--etag-save",
    ),
    runs("reads options from a file", "-K", "--config"),
  ],
  wget: [runs("runs wgetrc commands or a program", "-e", "--execute", "--use-askpass", "--config")],
  rsync: [runs("runs a program as the remote shell", "-e", "--rsh", "--rsync-path")],
  scp: [runs("runs a program or reads an ssh configuration", "-S", "-F")],
  sftp: [runs("runs a program or reads an ssh configuration", "-S", "-F")],
  ssh: [runs("reads an ssh configuration, which can run programs", "-F")],
  man: [runs("runs a pager or browser program", "-P", "--pager", "-H", "--html")],
  less: [writes("writes a log file", "-o", "-O", "--log-file", "--LOG-FILE")],
  vim: [code("runs editor commands", "-c", "--cmd", "-S", "-s")],
  emacs: [code("runs Lisp code", "--eval", "-l", "--load", "-f", "--funcall", "--script", "-x")],
  gdb: [
    code(
      "runs debugger commands",
      "-ex",
      "-iex",
      "-x",
      "-ix",
      "--eval-command",
      "--init-eval-command",
      "--command",
      "--init-command",
    ),
  ],
  make: [code("runs make code", "--eval", "-E")],
  go: [runs("runs a program", "-exec", "--exec", "-toolexec", "--toolexec")],
  cargo: [runs("sets configuration, including runners and wrappers", "--config")],
  npm: [
    runs(
      "names a program npm runs",
      "--script-shell",
      "--shell",
      "--node-options",
      "--editor",
      "--browser",
      "--viewer",
      "--git",
      "--onload-script",
      "--init-module",
    ),
    runs(
      "loads a configuration file, which can name programs to run",
      "--userconfig",
      "--globalconfig",
      "--prefix",
      "--use-yarnrc",
      "--rc-filename",
    ),
  ],
  prettier: [rewrites("--write", "-w"), runs("loads plugin code", "--plugin")],
  eslint: [
    rewrites("--fix"),
    runs("loads rule or plugin code", "--rulesdir", "--resolve-plugins-relative-to", "--plugin"),
  ],
  biome: [rewrites("--write", "--fix", "--apply", "--apply-unsafe")],
  gofmt: [rewrites("-w")],
  ruff: [rewrites("--fix")],
  yq: [rewrites("-i", "--inplace")],
  perl: [rewrites("-i")],
  nc: [runs("runs a program on a socket", "-e", "-c", "--exec", "--sh-exec", "--lua-exec")],
  screen: [runs("runs commands in a screen session", "-X", "-m")],
};

const ALIASES: Readonly<Record<string, string>> = {
  vi: "vim",
  nvim: "vim",
  view: "vim",
  vimdiff: "vim",
  ex: "vim",
  gvim: "vim",
  rvim: "vim",
  ncat: "nc",
  netcat: "nc",
  pnpm: "npm",
  yarn: "npm",
  npx: "npm",
  fdfind: "fd",
  gawk: "awk",
  mawk: "awk",
  nawk: "awk",
};

const TMUX_RUNS =
  /^(run-shell|run|new-session|new|new-window|neww|split-window|splitw|send-keys|send|respawn-pane|respawnp|respawn-window|respawnw|pipe-pane|pipep|if-shell|if|display-popup|popup)$/;

/** Custom readers for commands whose risk lives in a program text or an operand. */
const CUSTOM: Readonly<Record<string, (words: readonly ShellWord[]) => Inspection>> = {
  git: inspectGit,
  // `--config.KEY=VALUE` (pnpm) sets any setting, the shell scripts run with among them.
  npm: (words) =>
    flagWords(
      words,
      /^--config\./,
      "dangerous_flag",
      "--config.KEY sets a setting, which can name a program",
    ),
  sed: inspectSed,
  awk: inspectAwk,
  tee: inspectTee,
  dd: inspectDd,
  ssh: inspectSshOptions,
  scp: inspectSshOptions,
  sftp: inspectSshOptions,
  vim: inspectVim,
  sqlite3: inspectSqlite,
  socat: (words) =>
    flagWords(words, /^(exec|system):/i, "inline_code", "socat address runs a program"),
  tmux: (words) => flagWords(words, TMUX_RUNS, "dangerous_flag", "tmux runs a shell command"),
  crontab: (words) =>
    words.length > 1 && !words.slice(1).every((w) => w.value === "-l" || w.value.startsWith("-u"))
      ? {
          ...emptyInspection(),
          findings: [{ reason: "dangerous_flag", detail: "crontab installs jobs that run later" }],
        }
      : emptyInspection(),
};

function flagWords(
  words: readonly ShellWord[],
  pattern: RegExp,
  reason: UncertaintyReason,
  detail: string,
): Inspection {
  const result = emptyInspection();
  if (words.slice(1).some((w) => pattern.test(w.value))) result.findings.push({ reason, detail });
  return result;
}

/** The value a matched flag takes, for `harmless` checks. */
function flagValue(words: readonly ShellWord[], i: number, attached: string): string | undefined {
  return attached !== "" ? attached : words[i + 1]?.value;
}

function matchFlag(
  words: readonly ShellWord[],
  i: number,
  flag: string,
): { value: string | undefined } | null {
  const text = (words[i] as ShellWord).value;
  if (flag.startsWith("--") || flag.length > 2) {
    if (text === flag) return { value: flagValue(words, i, "") };
    if (text.startsWith(`${flag}=`)) return { value: text.slice(flag.length + 1) };
    return null;
  }
  if (!/^-[A-Za-z0-9]/.test(text) || text.startsWith("--")) return null;
  const at = text.indexOf(flag[1] as string, 1);
  return at < 0 ? null : { value: flagValue(words, i, text.slice(at + 1)) };
}

function tableFindings(
  rules: readonly RiskyFlag[],
  words: readonly ShellWord[],
  name: string,
): Finding[] {
  const findings: Finding[] = [];
  for (const rule of rules) {
    for (let i = 1; i < words.length; i++) {
      if ((words[i] as ShellWord).value === "--") break;
      const flag = rule.flags.find((f) => matchFlag(words, i, f) !== null);
      if (flag === undefined) continue;
      const value = matchFlag(words, i, flag)?.value;
      if (rule.harmless !== undefined && value !== undefined && rule.harmless.includes(value))
        continue;
      findings.push({ reason: rule.reason, detail: `${name} ${flag} ${rule.detail}` });
      break;
    }
  }
  return findings;
}

/**
 * Inspect a command for risky flags and arguments; `null` when the program has no entry.
 *
 * @example
 * ```ts
 * declare const words: (script: string) => import("./shell-word.js").ShellWord[]; // a command's words, as resolved
 * inspectRisky("find", words("find . -delete"))?.findings[0]?.detail; // "find -delete deletes files"
 * inspectRisky("ls", words("ls -la"));                                // null
 * ```
 */
export function inspectRisky(name: string, words: readonly ShellWord[]): Inspection | null {
  const key = Object.hasOwn(ALIASES, name) ? (ALIASES[name] as string) : name;
  const rules = Object.hasOwn(RISKY_FLAGS, key) ? RISKY_FLAGS[key] : undefined;
  const custom = Object.hasOwn(CUSTOM, key) ? CUSTOM[key] : undefined;
  if (rules === undefined && custom === undefined) return null;
  const result = custom === undefined ? emptyInspection() : custom(words);
  if (rules !== undefined) {
    for (const finding of tableFindings(rules, words, name)) result.findings.push(finding);
  }
  const open = openOption(words);
  if (open !== undefined && rules !== undefined)
    result.findings.push({
      reason: "dangerous_flag",
      detail: `${name}: ${open} is only known at run time and may expand into one of its risky options`,
    });
  return result;
}

/**
 * An unquoted word whose start comes from an expansion or a glob (`*`, `$OPTS`), before any
 * `--`: a file named `--pre=./x` or a variable holding an option turns into one at run time.
 */
function openOption(words: readonly ShellWord[]): string | undefined {
  for (let i = 1; i < words.length; i++) {
    const word = words[i] as ShellWord;
    if (word.value === "--") return undefined;
    if (isUncertainWord(word) && /^[$*?[`]/.test(word.value)) return word.value;
  }
  return undefined;
}
