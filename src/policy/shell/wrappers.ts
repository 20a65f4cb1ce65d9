/**
 * Wrappers: programs that run another program given in their arguments. The analyser judges
 * both the wrapper (`sudo …`) and what it runs (`rm …`, marked `via: names("sudo")`), so a deny rule
 * on `rm *` cannot be dodged with `sudo rm`, and an allow rule on `sudo *` allows nothing by
 * itself. This file is the documented list; `unwrap-command.ts` applies it.
 *
 * How to read an entry: options are skipped following `OptionSpec` (short options taking a
 * value, long options taking a value, known flags: an option outside known flags is reported
 * as `unknown_option` because the table may be missing a value-taking option); then `operands`
 * words are skipped; what remains is the command, unless the entry says it is one shell string.
 *
 * | wrapper | options and operands skipped | then runs |
 * | --- | --- | --- |
 * | env | -0 -i -v, -u NAME, -C DIR, -a ARG0, -S STRING (split into words), NAME=VALUE words | the command |
 * | sudo | -A -b -E -e -H -i -K -k -l -N -n -P -S -s -V -v, -u/-g/-C/-D/-h/-p/-R/-r/-T/-t/-U VALUE, NAME=VALUE | the command |
 * | doas / pkexec | -n -s -L, -u USER, -C FILE / --user USER | the command |
 * | nice | -n N, -N | the command |
 * | nohup, builtin, catchsegv, eatmydata, chronic, dbus-run-session, ifne, unbuffer | flags | the command |
 * | timeout | -f -p -v, -k/-s VALUE, DURATION | the command |
 * | time | -p -v -a -q, -o FILE, -f FORMAT | the command |
 * | command | -p; with -v/-V nothing runs | the command |
 * | exec | -c -l, -a NAME | the command |
 * | setsid | -c -f -w | the command |
 * | flock | -s -x -e -u -n -o -F, -w/-E VALUE, LOCKFILE, optional `-c STRING` | the command or the string |
 * | ionice | -t, -c/-n VALUE; -p/-P/-u PID mean nothing runs | the command |
 * | chrt | policy flags, -T/-P/-D VALUE, PRIORITY; -p/-m mean nothing runs | the command |
 * | taskset | -a -c, MASK; -p means nothing runs | the command |
 * | strace / ltrace | their flags, value options (-e -o -p -s -u …) | the command |
 * | watch | -b -c -C -e -g -t -x -p -w -r, -n/-q VALUE | the words joined, run by `sh -c` (as argv with -x) |
 * | stdbuf | -i/-o/-e MODE | the command |
 * | ssh | its flags, -B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w VALUE, HOST | the words joined, run by the remote shell |
 * | su / runuser | -l -m -p -P -f, -s/-g/-G/-w VALUE (anywhere); runuser -u USER | `-c STRING`; runuser -u: the command |
 * | script | -a -e -f -q, -E/-I/-O/-B/-T/-m VALUE | `-c STRING` |
 * | sg | GROUP, optional -c | the words joined, run by `sh -c` |
 * | chroot | --userspec/--groups VALUE, --skip-chdir, NEWROOT | the command |
 * | nsenter / unshare / setpriv / prlimit / numactl / firejail / valgrind | their options | the command |
 * | busybox / toybox | nothing: the first word is the applet | the applet |
 * | caffeinate | -d -i -m -s -u, -t/-w VALUE | the command |
 * | proxychains(4) / torsocks / fakeroot / faketime / gosu / su-exec / ssh-agent / rlwrap / xvfb-run | their options (+ USER or TIMESTAMP) | the command |
 * | systemd-run | its flags, value options (-p -E -M -u …) | the command |
 * | npx | `-c/--call STRING` only (a package binary is not a system command) | the string |
 * | nix-shell | `--run/--command STRING` | the string |
 * | xargs | -0 -r -t -p -x -o, -a/-d/-E/-I/-L/-n/-P/-s VALUE, -i/-e/-l[VALUE] | the command (default echo) with the input words appended |
 * | find | every `-exec/-execdir/-ok/-okdir … ;` or `… {} +` | each such command (`{}` is a run-time file name) |
 * | coproc | an optional NAME and `{` | the command |
 * | parallel | its options, up to `:::` | the words joined, run by a shell (input replaces `{}`) |
 */
import type { OptionSpec } from "./option-scanner.js";

/** Blank-separated names, to keep the table readable. */
function names(list: string): readonly string[] {
  return list.split(" ");
}

/** How a wrapper's arguments are skipped to reach what it runs. */
export interface WrapperSpec extends OptionSpec {
  /** Words after the options to skip before the command: DURATION, LOCKFILE, HOST, USER. */
  readonly operands?: number;
  /** Leading NAME=VALUE words set the environment of the command (env, sudo). */
  readonly assignments?: boolean;
  /** Options after which nothing runs (`command -v`, `taskset -p`), canonical names. */
  readonly noCommand?: readonly string[];
  /** Options whose value is a shell string (`su -c`, `script -c`, `nix-shell --run`). */
  readonly shellOptions?: readonly string[];
  /** After the operands, this word introduces a shell string (`flock LOCK -c STRING`). */
  readonly trailingShellFlags?: readonly string[];
  /** Options whose value is split on blanks and prepended to the command (`env -S`). */
  readonly splitOptions?: readonly string[];
  /** Where the command comes from: the remaining words as argv (default), joined as one shell string, or nowhere. */
  readonly command?: "argv" | "joined" | "none";
  /** Options that turn `joined` back into argv (`watch -x`). */
  readonly argvOptions?: readonly string[];
  /** Options that make the remaining words the command even when `command` is `none` (`runuser -u`). */
  readonly argvWhen?: readonly string[];
  /** Wrappers whose shape needs code: see `unwrap-command.ts`. */
  readonly custom?: "find" | "xargs" | "coproc" | "parallel";
}

const SHELL_C = names("-c --command");

/** The wrapper table, keyed by program base name. */
export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: {
    shortValued: "uCSaP",
    shortFlags: "0iv",
    longValued: names("unset chdir split-string argv0"),
    longOptional: names("block-signal default-signal ignore-signal"),
    longFlags: names("null ignore-environment debug list-signal-handling help version"),
    assignments: true,
    splitOptions: names("-S --split-string"),
  },
  sudo: {
    shortValued: "CDgpRrTtUu",
    shortFlags: "AbEeHhiKklNnPSsVv",
    longValued: names(
      "close-from chdir group host prompt chroot role type command-timeout other-user user",
    ),
    longOptional: names("preserve-env"),
    longFlags: names(
      "askpass background bell edit help set-home login remove-timestamp reset-timestamp list non-interactive preserve-groups shell stdin version validate",
    ),
    assignments: true,
    noCommand: names("-e --edit -V --version -K --remove-timestamp"),
  },
  doas: { shortValued: "uC", shortFlags: "nsL", noCommand: names("-C") },
  pkexec: {
    longValued: names("user"),
    longFlags: names("disable-internal-agent keep-cwd help version"),
  },
  nice: {
    shortValued: "n",
    longValued: names("adjustment"),
    longFlags: names("help version"),
    numeric: true,
  },
  nohup: { longFlags: names("help version") },
  builtin: {},
  catchsegv: {},
  eatmydata: {},
  chronic: { shortFlags: "ev" },
  ifne: { shortFlags: "n" },
  unbuffer: { shortFlags: "p" },
  "dbus-run-session": {
    longValued: names("config-file dbus-daemon"),
    longFlags: names("help version"),
  },
  timeout: {
    shortValued: "ks",
    shortFlags: "fpv",
    longValued: names("kill-after signal"),
    longFlags: names("foreground preserve-status verbose help version"),
    operands: 1,
  },
  time: {
    shortValued: "of",
    shortFlags: "pvaq",
    longValued: names("output format"),
    longFlags: names("append portability verbose quiet help version"),
  },
  command: { shortFlags: "pvV", noCommand: names("-v -V") },
  exec: { shortValued: "a", shortFlags: "cl" },
  setsid: { shortFlags: "cfw", longFlags: names("ctty fork wait help version") },
  flock: {
    shortValued: "wE",
    shortFlags: "sxeunoFhV",
    longValued: names("wait timeout conflict-exit-code"),
    longFlags: names("shared exclusive unlock nonblock nb close no-fork verbose help version"),
    operands: 1,
    trailingShellFlags: SHELL_C,
  },
  ionice: {
    shortValued: "cnpPu",
    shortFlags: "t",
    longValued: names("class classdata pid pgid uid"),
    longFlags: names("ignore help version"),
    noCommand: names("-p -P -u --pid --pgid --uid"),
  },
  chrt: {
    shortValued: "TPD",
    shortFlags: "abdfiorRmpvhV",
    longValued: names("sched-runtime sched-period sched-deadline"),
    longFlags: names(
      "all-tasks batch deadline fifo idle other rr reset-on-fork max pid verbose help version",
    ),
    operands: 1,
    noCommand: names("-p --pid -m --max"),
  },
  taskset: {
    shortFlags: "acphV",
    longFlags: names("all-tasks cpu-list pid help version"),
    operands: 1,
    noCommand: names("-p --pid"),
  },
  strace: {
    shortValued: "abeEIoOpPsSuUX",
    shortFlags: "cCdDfFhiknqrtTvVwxyzZ",
    longValued: names(
      "output attach signal trace trace-path string-limit user env columns summary-sort-by",
    ),
    longOptional: names(
      "decode-fds instruction-pointer stack-trace summary absolute-timestamps relative-timestamps timestamps syscall-times follow-forks output-separately quiet silent",
    ),
  },
  ltrace: {
    shortValued: "aADeFlnopsuwx",
    shortFlags: "bcCfhiLrStTV",
    longValued: names("output library indent align"),
  },
  watch: {
    shortValued: "nq",
    shortFlags: "bcCdegtxpwrhv",
    longValued: names("interval equexit"),
    longOptional: names("differences"),
    longFlags: names(
      "beep color no-color errexit chgexit no-title no-wrap exec precise no-rerun help version",
    ),
    command: "joined",
    argvOptions: names("-x --exec"),
  },
  stdbuf: {
    shortValued: "ioe",
    longValued: names("input output error"),
    longFlags: names("help version"),
  },
  ssh: {
    shortValued: "BbcDEeFIiJLlmOopQRSWw",
    shortFlags: "46AaCfGgKkMNnqsTtVvXxYy",
    operands: 1,
    command: "joined",
    noCommand: names("-V -Q"),
  },
  su: {
    shortValued: "csgGw",
    shortFlags: "lmpPfhV",
    longValued: names("command session-command shell group supp-group whitelist-environment"),
    longFlags: names("login preserve-environment pty fast help version"),
    permute: true,
    shellOptions: names("-c --command --session-command"),
    command: "none",
  },
  runuser: {
    shortValued: "csgGwu",
    shortFlags: "lmpPfhV",
    longValued: names("command session-command shell group supp-group whitelist-environment user"),
    longFlags: names("login preserve-environment pty fast help version"),
    shellOptions: names("-c --command --session-command"),
    command: "none",
    argvWhen: names("-u --user"),
  },
  script: {
    shortValued: "cEIOBTm",
    shortFlags: "aefqhV",
    shortOptional: "t",
    longValued: names("command echo log-in log-out log-io log-timing logging-format output-limit"),
    longOptional: names("timing"),
    longFlags: names("append return flush force quiet help version"),
    shellOptions: names("-c --command"),
    command: "none",
  },
  sg: { operands: 1, trailingShellFlags: names("-c"), command: "joined" },
  chroot: {
    longValued: names("userspec groups"),
    longFlags: names("skip-chdir help version"),
    operands: 1,
  },
  nsenter: { shortValued: "tSG", longValued: names("target setuid setgid") },
  unshare: {
    shortValued: "SGRw",
    longValued: names(
      "setuid setgid root wd propagation setgroups map-user map-group map-users map-groups monotonic boottime",
    ),
  },
  setpriv: {
    longValued: names(
      "reuid regid groups inh-caps ambient-caps bounding-set securebits pdeathsig selinux-label apparmor-profile landlock-access landlock-rule",
    ),
  },
  prlimit: { shortValued: "po", longValued: names("pid output") },
  numactl: {
    shortValued: "ilmNCpP",
    longValued: names(
      "interleave localalloc membind cpunodebind physcpubind preferred preferred-many",
    ),
  },
  firejail: {},
  valgrind: {},
  busybox: {},
  toybox: {},
  caffeinate: { shortValued: "tw", shortFlags: "dimsu" },
  proxychains: { shortValued: "f", shortFlags: "q" },
  proxychains4: { shortValued: "f", shortFlags: "q" },
  torsocks: {
    shortValued: "uapP",
    shortFlags: "idqhv",
    longFlags: names("shell isolate version help"),
  },
  fakeroot: { shortValued: "lsib", longValued: names("lib faked unknown-is-real") },
  faketime: { shortValued: "mp", shortFlags: "f", operands: 1 },
  gosu: { operands: 1 },
  "su-exec": { operands: 1 },
  "ssh-agent": { shortValued: "aEOPt", shortFlags: "cDdsk", noCommand: names("-k") },
  rlwrap: { shortValued: "abCDefFgHlMnOopPqsStwz", shortFlags: "AcEhimNrRUvX" },
  "xvfb-run": {
    shortValued: "nlsfpe",
    shortFlags: "ah",
    longValued: names("server-num server-args auth-file xauth-protocol error-file"),
  },
  "systemd-run": {
    shortValued: "pEuMH",
    longValued: names(
      "unit property description slice uid gid nice working-directory setenv machine host on-active on-boot on-calendar timer-property path-property socket-property",
    ),
  },
  npx: {
    shortValued: "cp",
    longValued: names("call package"),
    shellOptions: names("-c --call"),
    command: "none",
  },
  "nix-shell": {
    longValued: names("run command packages arg argstr attr"),
    shellOptions: names("--run --command"),
    command: "none",
    permute: true,
  },
  xargs: {
    shortValued: "aEIdLnPs",
    shortOptional: "iel",
    shortFlags: "0rtpxo",
    longValued: names("arg-file delimiter max-args max-procs max-chars process-slot-var"),
    longOptional: names("eof replace max-lines"),
    longFlags: names(
      "null no-run-if-empty verbose interactive exit open-tty show-limits help version",
    ),
    custom: "xargs",
  },
  find: { custom: "find" },
  coproc: { custom: "coproc" },
  parallel: {
    shortValued: "jSdEIa",
    longValued: names("jobs sshlogin delimiter arg-file joblog results tmpdir"),
    custom: "parallel",
  },
};
