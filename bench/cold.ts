import { execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtCli, childrenCpuMs, loadAverage } from "./built-cli.js";

// Process start to first answer of the built CLI, as a user's shell starts it: fresh processes
// of dist/src/cli/main.js (rebuilt first when older than src/), interleaved so a busy machine
// weighs on every figure alike. `node -e 0` is the floor no command can go under.

/** What one process cost: to its first byte on stdout, to its exit, its CPU and peak RSS. */
export interface Sample {
  readonly answerMs: number;
  readonly exitMs: number;
  readonly cpuMs: number;
  readonly rssMb: number;
}

// Preloaded into each measured process: its peak RSS, on fd 3, as it exits. One tiny module.
const RSS_PROBE =
  "data:text/javascript,import{writeSync}from'node:fs';process.on('exit',()=>{try{writeSync(3,String(process.resourceUsage().maxRSS))}catch{}})";

/**
 * The environment a measured process gets: the user's (less docket's own config variables), or
 * that without `NODE_EXTRA_CA_CERTS`. Node 20 reads and parses the whole CA bundle that variable
 * names as the process starts, before any JavaScript (about 40 ms for Debian's bundle); Node 22
 * and later read it lazily, on the first TLS connection. A cost of the user's environment that
 * docket cannot avoid, so both figures are printed (docs/adr/0021-cold-start-floor.md).
 */
function childEnv(withoutCaCerts: boolean, configHome: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DOCKET_CONFIG: "",
    DOCKET_STORE: "",
    NO_COLOR: "1",
    // The bench's own config folder (its caches, an audit key), never the user's.
    XDG_CONFIG_HOME: configHome,
  };
  if (withoutCaCerts) delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

function once(
  args: readonly string[],
  cwd: string,
  expect: RegExp,
  withoutCaCerts: boolean,
  configHome: string,
): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const cpuBefore = childrenCpuMs();
    let answered: number | undefined;
    let out = "";
    let rss = "";
    const child = spawn(process.execPath, ["--import", RSS_PROBE, ...args], {
      cwd,
      env: childEnv(withoutCaCerts, configHome),
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      answered ??= performance.now();
      out += chunk;
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      out += chunk;
    });
    (child.stdio[3] as NodeJS.ReadableStream).on("data", (chunk: Buffer) => {
      rss += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const exitMs = performance.now() - started;
      if (code !== 0 || !expect.test(out)) {
        reject(new Error(`${args.join(" ")} exited ${code}: ${out.slice(0, 400)}`));
        return;
      }
      resolve({
        answerMs: (answered ?? performance.now()) - started,
        exitMs,
        cpuMs: childrenCpuMs() - cpuBefore,
        rssMb: Number(rss) / 1024,
      });
    });
  });
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/**
 * One case's figures. A target is judged on the time to the process's exit: what a shell, a
 * script or a hook's host waits for. The first byte on stdout comes earlier (before the run's
 * last commit, the store's close and Node's own exit), so it is printed first but judges nothing.
 */
export function line(name: string, samples: readonly Sample[], target?: number): string {
  const answers = samples.map((s) => s.answerMs);
  const exits = samples.map((s) => s.exitMs);
  const exit = quantile(exits, 0.5);
  const ms = (value: number) => value.toFixed(0).padStart(4);
  const cpu = samples.reduce((sum, s) => sum + s.cpuMs, 0) / samples.length;
  const rss = quantile(
    samples.map((s) => s.rssMb),
    0.5,
  );
  const verdict =
    target === undefined
      ? ""
      : ` (target ${target}, to exit: ${exit <= target ? "met" : "NOT met"})`;
  return `${name.padEnd(46)} first byte ${ms(quantile(answers, 0.5))} ms; exit median ${ms(exit)} ms, p90 ${ms(quantile(exits, 0.9))}, min ${ms(Math.min(...exits))}; CPU ${ms(cpu)} ms; RSS ${rss.toFixed(0)} MB${verdict}`;
}

/** One measured command: the arguments after `node`, where it runs, what its output shows. */
interface Case {
  readonly name: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly expect: RegExp;
  readonly target?: number;
  /** Run before each process, untimed (emptying the code cache for a first run). */
  readonly before?: () => Promise<void>;
  /** Run after each process, untimed (putting back what `before` set aside). */
  readonly after?: () => Promise<void>;
}

/**
 * Time fresh processes of the built CLI from spawn to their first answer and to their exit, `runs` of each,
 * interleaved: `node -e 0`, `docket policy check run_command '{"command":"ls"}'` in a folder
 * after `docket init` (with its code cache warm and empty, and of a command with syntax, which
 * loads tree-sitter), and a one-turn `docket run` with the scripted model (with its code cache
 * warm and empty, and with one tool call). The children's config folder (caches included) is the bench's own. Prints the median to the
 * first byte, the median, p90 and min to the exit (which the targets are judged on), the CPU and
 * the peak RSS of each.
 *
 * @example
 * ```ts
 * await benchCold(); // policy check run_command ls: first byte … ms; exit median … ms, p90 …, min …; CPU …; RSS … MB
 * ```
 */
export async function benchCold(
  runs = Number(process.env.DOCKET_BENCH_COLD_RUNS ?? 15),
): Promise<void> {
  const { root, main } = builtCli("cold");
  const dir = await mkdtemp(join(tmpdir(), "docket-bench-cold-"));
  try {
    const configHome = join(dir, "config");
    const codeCache = join(configHome, "docket", "cache", "code");
    // One bundle's or command's entries only (cli-loader.ts names one a command): the other
    // cases keep theirs. They are set aside, and put back after the measured process (whatever
    // it wrote removed), so the cases after it find the cache as a user's later commands do:
    // otherwise the next run with a tool call would measure the fuller entry's first write
    // (docs/adr/0092-a-fuller-code-cache.md) every round.
    const aside = join(dir, "aside");
    const ofCommand = (prefix: string) => async () => {
      const entries = await readdir(codeCache).catch(() => [] as string[]);
      return entries.filter((name) => name.startsWith(`${prefix}-node`));
    };
    const forget = (prefix: string) => async () => {
      await mkdir(aside, { recursive: true });
      for (const entry of await ofCommand(prefix)())
        await rename(join(codeCache, entry), join(aside, entry));
    };
    const restore = (prefix: string) => async () => {
      for (const entry of await ofCommand(prefix)())
        await rm(join(codeCache, entry), { force: true });
      for (const entry of await readdir(aside))
        await rename(join(aside, entry), join(codeCache, entry));
    };
    const env = childEnv(false, configHome);
    execFileSync(process.execPath, [main, "init"], { cwd: dir, env, stdio: "ignore" });
    const runDir = join(dir, "run");
    await mkdir(runDir);
    await writeFile(join(runDir, "script.yaml"), 'turns:\n  - text: "Hello."\n');
    await writeFile(
      join(runDir, "tool.yaml"),
      [
        "turns:",
        "  - text: Looking.",
        "    tool_calls:",
        `      - { id: call_1, name: list_files, arguments: '{"path":"."}' }`,
        "  - text: Done.",
        "",
      ].join("\n"),
    );
    await writeFile(join(runDir, "docket.yaml"), "model: scripted:script.yaml\n");
    const cases: Case[] = [
      { name: "node -e 0 (the floor)", args: ["-e", "0"], cwd: dir, expect: /^$/ },
      {
        name: "policy check run_command ls",
        args: [main, "policy", "check", "run_command", '{"command":"ls"}'],
        cwd: dir,
        expect: /decision: allow/,
        target: 120,
      },
      {
        // As the first check after an install or upgrade: no code cache yet, so the bundle is
        // compiled from source and the cache written after the answer (docs/adr/0022-code-cache.md).
        name: "policy check ls, empty code cache",
        args: [main, "policy", "check", "run_command", '{"command":"ls"}'],
        cwd: dir,
        expect: /decision: allow/,
        before: forget("policy-check"),
        after: restore("policy-check"),
      },
      {
        // A list is syntax: tree-sitter loads (a plain-words command like `ls` is read without).
        name: "policy check git status && ls src",
        args: [main, "policy", "check", "run_command", '{"command":"git status && ls src"}'],
        cwd: dir,
        expect: /decision: allow/,
      },
      {
        name: "run, one scripted turn",
        args: [main, "run", "Hi."],
        cwd: runDir,
        expect: /Hello\./,
        target: 200,
      },
      {
        // As the first run after an install or upgrade: the CLI's script compiled from source,
        // and its cache written after the answer (docs/adr/0087-the-cli-is-one-cached-script.md).
        name: "run, one scripted turn, empty code cache",
        args: [main, "run", "Hi."],
        cwd: runDir,
        expect: /Hello\./,
        before: forget("cli-run"),
        after: restore("cli-run"),
      },
      {
        name: "run, one list_files call, two turns",
        args: [main, "run", "--model", `scripted:${join(runDir, "tool.yaml")}`, "Look."],
        cwd: runDir,
        expect: /Done\./,
      },
    ];
    // Each case as the user's environment is, and without NODE_EXTRA_CA_CERTS when it is set.
    const caCerts = process.env.NODE_EXTRA_CA_CERTS;
    const ways = caCerts ? [false, true] : [false];
    const measured = cases.flatMap((c) =>
      ways.map((without) => ({
        ...c,
        without,
        name: without ? `${c.name}, no CA var` : c.name,
      })),
    );
    // One of each first: the store is created and the OS caches are warm, as for a user's second command.
    const measure = async (c: (typeof measured)[number]) => {
      await c.before?.();
      const sample = await once(c.args, c.cwd, c.expect, c.without, configHome);
      await c.after?.();
      return sample;
    };
    for (const c of measured) await measure(c);
    const samples = measured.map(() => [] as Sample[]);
    for (let i = 0; i < runs; i++) {
      for (const [at, c] of measured.entries()) samples[at]?.push(await measure(c));
    }
    const load = loadAverage();
    process.stdout.write(
      `cold start of ${main.replace(root, "")}, ${runs} fresh processes each, interleaved (load average ${load}):\n`,
    );
    if (caCerts) {
      process.stdout.write(
        `  ("no CA var": NODE_EXTRA_CA_CERTS=${caCerts} removed from the child's environment. Node ${process.versions.node.split(".")[0]} ${
          Number(process.versions.node.split(".")[0]) < 22
            ? "reads that CA bundle at start, before any JavaScript"
            : "reads it lazily (Node 22+), so both ways should match"
        }: a cost of the user's environment, not docket's; the target is judged both ways)\n`,
      );
    }
    for (const [at, c] of measured.entries())
      process.stdout.write(`  ${line(c.name, samples[at] ?? [], c.target)}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
