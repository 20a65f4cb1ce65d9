import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { installedCli, useInstalledCli } from "../../support/installed-cli.js";

const exec = promisify(execFile);
// Resolved from this repository, so a child started in a temp directory still finds tsx.
const tsx = import.meta.resolve("tsx");
const repo = fileURLToPath(new URL("../../../", import.meta.url));
// runDocketIn runs the installed CLI: installed before each file's tests start.
useInstalledCli();

/** The outcome of one child process. */
export interface ChildOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Where a child runs and what it sees of the environment. */
export interface ChildOptions {
  /** Working directory. Default: the repository. */
  readonly cwd?: string;
  /** HOME (and XDG_CONFIG_HOME under it): no user policy file of the machine leaks in. */
  readonly home?: string;
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The parent's environment without anything that would point docket elsewhere: store, policy
 * files, provider keys and URLs.
 */
function isolatedEnv(options: ChildOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(DOCKET_|ANTHROPIC_|OPENAI_|XDG_CONFIG_HOME$)/.test(key)) continue;
    env[key] = value;
  }
  if (options.home) {
    env.HOME = options.home;
    env.XDG_CONFIG_HOME = join(options.home, ".config");
  }
  return { ...env, ...options.env };
}

/**
 * Run a TypeScript file of this repository in a new node process under tsx: a fixture, or the
 * CLI. Standard input is empty and not a TTY. Never throws for a non-zero exit.
 *
 * @example
 * ```ts
 * const { code, stdout } = await runTsx("src/cli/main.ts", ["--version"]);
 * ```
 */
export async function runTsx(
  file: string,
  args: readonly string[],
  options: ChildOptions = {},
): Promise<ChildOutcome> {
  return runNode(["--import", tsx, join(repo, file), ...args], options);
}

/** `node ARGS` with the child options: empty stdin, the isolated environment, 30 s at most. */
async function runNode(args: readonly string[], options: ChildOptions): Promise<ChildOutcome> {
  const child = exec(process.execPath, args, {
    cwd: options.cwd ?? repo,
    env: isolatedEnv(options),
    timeout: 30_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  child.child.stdin?.end();
  try {
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof e.code === "number" ? e.code : 1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? "",
    };
  }
}

/**
 * Run the installed `docket` command (the packed package's bundle), as a user runs the bin.
 *
 * @example
 * ```ts
 * const { stdout } = await runDocketIn(dir, ["run", "hi", "--model", `scripted:${file}`, "--json"]);
 * ```
 */
export function runDocketIn(
  cwd: string,
  args: readonly string[],
  options: Omit<ChildOptions, "cwd"> = {},
): Promise<ChildOutcome> {
  return installedCli().then((main) => runNode([main, ...args], { home: cwd, ...options, cwd }));
}

/**
 * Parse the JSON lines a `--json` command printed.
 *
 * @example
 * ```ts
 * const events = jsonLines(stdout);
 * ```
 */
export function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
