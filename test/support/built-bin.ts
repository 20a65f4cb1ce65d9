import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll } from "vitest";
import { writeScriptedProject } from "../cli/support/scripted-project.js";
import { cliIn } from "./installed-cli.js";
import { packedDocket } from "./packed-docket.js";

const exec = promisify(execFile);

/** Where the installed, bundled CLI is, and the scripted project its tests run in. */
export interface BuiltBin {
  /** `dist/src/cli/main.js`, the launcher, in the installed package. */
  main: string;
  /** `dist/src/cli/bin/main.js`, the bundle the launcher loads. */
  bundle: string;
  /** A scripted project (a docket.yaml allowing `node *`), the commands' working folder. */
  dir: string;
}

/** What a run of the bin gave, with the code cache's trace lines. */
export interface TracedRun {
  readonly code: number;
  readonly stdout: string;
  readonly trace: string[];
  /** The entry each trace line names (`cli-run-node24.21.0-x64`), line by line. */
  readonly names: string[];
}

/**
 * The bin as `npm run build` makes it: docket's sources bundled by scripts/bundle.mjs into
 * dist/src/cli/bin/ and the chunks it shares with the library, main.js its launcher, in the copy
 * `npm pack` ships installed into a fresh project (test/support/packed-docket.ts). Registers the
 * suite's `beforeAll` (packs on first use: give it time) and `afterAll`; the paths are set once
 * `beforeAll` ran.
 *
 * @example
 * ```ts
 * const { bin, docket } = useBuiltBin();
 * it("answers", async () => expect((await docket(["token"])).stdout).toMatch(/^\S{43}\n$/));
 * ```
 */
export function useBuiltBin() {
  const bin: BuiltBin = { main: "", bundle: "", dir: "" };
  beforeAll(async () => {
    const { main, bundle } = cliIn((await packedDocket("lean")).dir);
    bin.main = main;
    bin.bundle = bundle;
    bin.dir = await mkdtemp(join(tmpdir(), "docket-built-bin-"));
    await writeScriptedProject(bin.dir, ["node *"]);
  }, 900_000);
  afterAll(() => rm(bin.dir, { recursive: true, force: true }));

  /** `docket ARGS` in the project, with `input` on stdin and modules `--import`ed first. */
  const docket = (args: readonly string[], input?: string, preload: readonly string[] = []) => {
    const child = exec(
      process.execPath,
      [...preload.flatMap((file) => ["--import", file]), bin.main, ...args],
      {
        cwd: bin.dir,
        env: { ...process.env, HOME: bin.dir, DOCKET_CONFIG: "", DOCKET_STORE: "" },
      },
    );
    if (input !== undefined) child.child.stdin?.end(input);
    return child;
  };

  /** `docket ARGS` with the code cache's trace on (and `input` on stdin): output, code, trace. */
  const traced = async (
    args: readonly string[],
    env: NodeJS.ProcessEnv,
    input?: string,
  ): Promise<TracedRun> => {
    const call = exec(process.execPath, [bin.main, ...args], {
      cwd: bin.dir,
      env: {
        ...process.env,
        HOME: bin.dir,
        DOCKET_CONFIG: "",
        DOCKET_STORE: "",
        DOCKET_CODE_CACHE_TRACE: "1",
        ...env,
      },
    });
    if (input !== undefined) call.child.stdin?.end(input);
    const outcome = await call.then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    const lines = outcome.stderr
      .split("\n")
      .filter((line) => line.startsWith("docket code cache: "));
    const trace = lines.map((line) => line.replace(/^docket code cache: \S+ /, ""));
    const names = lines.map((line) => line.split(" ")[3] ?? "");
    return { code: outcome.code, stdout: outcome.stdout, trace, names };
  };

  return { bin, docket, traced, exec };
}

/**
 * A preload of test/fixtures/process-report/, for `docket(args, input, [preload])`.
 *
 * @example
 * ```ts
 * await docket(["policy", "check", "run_command", '{"command":"ls"}'], undefined, [processReport("builtins.mjs")]);
 * ```
 */
export function processReport(name: string): string {
  return fileURLToPath(new URL(`../fixtures/process-report/${name}`, import.meta.url));
}

/**
 * The line `name …` a preload wrote on standard error, as words.
 *
 * @example
 * ```ts
 * reported("loaded-builtins fs path\n", "loaded-builtins"); // ["fs", "path"]
 * ```
 */
export function reported(stderr: string, name: string): string[] {
  const line = stderr.split("\n").find((text) => text.startsWith(`${name} `));
  return line === undefined
    ? []
    : line
        .slice(name.length + 1)
        .split(" ")
        .filter(Boolean);
}
