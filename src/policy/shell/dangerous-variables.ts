/**
 * Environment and shell variables that change what a command runs or loads. Setting one
 * (`PATH=/tmp ls`, `export LD_PRELOAD=…`, `env GIT_PAGER=… git log`) means the command an allow
 * rule approved by name may not be the code that runs, so it is an uncertainty
 * (`dangerous_assignment`). Matched case-sensitively, as bash does, except `npm_config_*`,
 * which npm reads in any case.
 */

/** Exact names. */
const NAMES = new Set([
  // Program lookup and shell start-up.
  "PATH",
  "path",
  "BASH_ENV",
  "ENV",
  "SHELL",
  "SHELLOPTS",
  "BASHOPTS",
  "IFS",
  "CDPATH",
  "FPATH",
  "BASH_LOADABLES_PATH",
  "PROMPT_COMMAND",
  "PS0",
  "PS1",
  "PS2",
  "PS3",
  "PS4",
  "HOME",
  "ZDOTDIR",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  // Dynamic linker and C library.
  "GCONV_PATH",
  "LOCPATH",
  "HOSTALIASES",
  "RESOLV_HOST_CONF",
  // Programs that tools start on their own.
  "EDITOR",
  "VISUAL",
  "PAGER",
  "MANPAGER",
  "BROWSER",
  "LESSOPEN",
  "LESSCLOSE",
  "LESSKEY",
  "CC",
  "CXX",
  "CPP",
  "LD",
  "AR",
  "AS",
  "MAKE",
  "MAKEFLAGS",
  "MFLAGS",
  "RUSTC",
  "RUSTFLAGS",
  "RUSTDOCFLAGS",
  "CARGO_ENCODED_RUSTFLAGS",
  "CARGO_HOME",
  "GOFLAGS",
  "GOROOT",
  "GOTOOLCHAIN",
  "GOENV",
  "KUBECONFIG",
  "DOCKER_HOST",
  "DOCKER_CONFIG",
  "CURL_HOME",
  "WGETRC",
  "TERMINFO",
  "MAGIC",
  "RIPGREP_CONFIG_PATH",
  // Interpreters that load code from the environment.
  "NODE_OPTIONS",
  "NODE_PATH",
  "NODE_REPL_EXTERNAL_MODULE",
  "PERL5LIB",
  "PERL5OPT",
  "PERLLIB",
  "PERL5DB",
  "RUBYLIB",
  "RUBYOPT",
  "PHPRC",
  "PHP_INI_SCAN_DIR",
  "CLASSPATH",
  "LUA_PATH",
  "LUA_CPATH",
  "LUA_INIT",
  "R_PROFILE",
  "R_PROFILE_USER",
  "JULIA_LOAD_PATH",
  "TCLLIBPATH",
]);

/** Prefixes: whole families that load code or configuration. */
const PREFIXES = [
  "LD_",
  "DYLD_",
  "GIT_",
  "BASH_FUNC_",
  "PYTHON",
  "JAVA_",
  "_JAVA_",
  "JDK_",
  // Every YARN_* variable sets a yarn setting, plugins and the rc file's name among them.
  "YARN_",
];

/** Suffixes: variables naming a program to start or options for one. */
const SUFFIXES = [
  "_COMMAND",
  "_SHELL",
  "EDITOR",
  "PAGER",
  "ASKPASS",
  "_OPTIONS",
  "_OPTS",
  "_CONFIG",
  "CONFIG_FILE",
  "_PRELOAD",
  "_RUNNER",
  "_WRAPPER",
  "_LINKER",
];

/**
 * Whether assigning `name` can change what a later command runs. `name` may carry an array
 * subscript (`LD_PRELOAD[0]`), which is ignored.
 *
 * @example
 * ```ts
 * isDangerousVariable("PATH");        // true
 * isDangerousVariable("GIT_SSH_COMMAND"); // true
 * isDangerousVariable("NODE_ENV");    // false
 * ```
 */
export function isDangerousVariable(name: string): boolean {
  const bracket = name.indexOf("[");
  const base = bracket < 0 ? name : name.slice(0, bracket);
  if (NAMES.has(base)) return true;
  if (base.toUpperCase().startsWith("NPM_CONFIG_")) return true;
  for (const prefix of PREFIXES) if (base.startsWith(prefix)) return true;
  for (const suffix of SUFFIXES) if (base.endsWith(suffix)) return true;
  return false;
}
