import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll } from "vitest";
import { packedDocket } from "./packed-docket.js";

let cli: Promise<string> | undefined;
let installed: string | undefined;

/**
 * The CLI as users install it: `dist/src/cli/main.js` of the packed package installed with its
 * optional peers (test/support/packed-docket.ts packs and installs once per test run). Tests that
 * spawn `docket` run this, not the sources under tsx: what ships is what is tested, and a start
 * costs about a quarter of the CPU (no TypeScript compiled in each child).
 *
 * @example
 * ```ts
 * useInstalledCli(); // at the top of a test file: packs in its beforeAll, not in a test
 * const main = await installedCli();
 * ```
 */
export function installedCli(): Promise<string> {
  cli ??= packedDocket("full").then(({ dir }) => {
    installed = cliIn(dir).main;
    return installed;
  });
  return cli;
}

/**
 * Where the CLI is in a project `packedDocket` installed: `main`, the launcher `bin` names, and
 * `bundle`, the bundled command line it loads.
 *
 * @example
 * ```ts
 * const { main } = cliIn((await packedDocket("lean")).dir);
 * ```
 */
export function cliIn(project: string): { readonly main: string; readonly bundle: string } {
  const installedDocket = join(project, "node_modules/docket");
  return {
    main: join(installedDocket, "dist/src/cli/main.js"),
    bundle: join(installedDocket, "dist/src/cli/bin/main.js"),
  };
}

/**
 * `installedCli()`'s path once a `beforeAll` of `useInstalledCli` has run: for what must be
 * written synchronously, such as the hook command a host's settings name.
 *
 * @example
 * ```ts
 * useInstalledCli();
 * it("registers", () => expect(installedCliPath()).toMatch(/main\.js$/));
 * ```
 */
export function installedCliPath(): string {
  if (installed === undefined) throw new Error("useInstalledCli() has not installed the CLI yet");
  return installed;
}

/**
 * Pack and install in the file's `beforeAll`, whose time limit allows for it (the first pack of
 * a run builds): a test that then spawns the CLI does not spend its own time limit on it.
 *
 * @example
 * ```ts
 * useInstalledCli(); // at a test file's top level, or in a helper module it imports
 * ```
 */
export function useInstalledCli(): void {
  beforeAll(async () => {
    await installedCli();
  }, 900_000);
}

/**
 * The build an installed CLI names its hook daemons by (`DOCKET_BUILD`, written into the launcher
 * by scripts/bundle.mjs): what a test that speaks to the daemon by hand must name too.
 *
 * @example
 * ```ts
 * const identity = daemonIdentity({ cwd, env, build: installedBuild(installedCliPath()) });
 * ```
 */
export function installedBuild(main: string): string {
  const build = /DOCKET_BUILD\s*=\s*"([0-9a-f]{16})"/.exec(readFileSync(main, "utf8"))?.[1];
  if (build === undefined) throw new Error(`${main} names no docket build`);
  return build;
}
