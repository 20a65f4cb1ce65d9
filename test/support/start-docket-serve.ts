import { spawn } from "node:child_process";
import { installedCli, useInstalledCli } from "./installed-cli.js";

// Every file that serves installs the CLI before its tests start (the first of a run packs).
useInstalledCli();

/** A `docket serve` process, once it has said where it listens. */
export interface ServingDocket {
  /** `http://127.0.0.1:PORT`, the API's and the console's origin. */
  readonly url: string;
  /** What it wrote to standard error so far. */
  stderr(): string;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Start `docket serve ARGS` from source in its own process and wait for its "web console at"
 * line; rejects with its standard error when it ends first.
 *
 * @example
 * ```ts
 * const served = await startDocketServe(["--port", "0"], { cwd: dir, env });
 * await fetch(`${served.url}/approvals`);
 * await served.stop();
 * ```
 */
export async function startDocketServe(
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<ServingDocket> {
  const child = spawn(process.execPath, [await installedCli(), "serve", ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  let stderr = "";
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        const match = /web console at (http:\/\/127\.0\.0\.1:\d+)\/console\//.exec(stderr);
        if (match?.[1]) resolve(match[1]);
      });
      void exited.then(() => reject(new Error(`docket serve ended: ${stderr}`)));
    });
    return {
      url,
      stderr: () => stderr,
      stop: () => {
        child.kill("SIGTERM");
        return exited;
      },
    };
  } catch (error) {
    child.kill("SIGTERM");
    throw error;
  }
}
