import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { docketProtection } from "../../../src/cli/docket-protection.js";
import { loadConfig } from "../../../src/config/load-config.js";
import { loadPolicyFiles } from "../../../src/config/load-policy-files.js";
import { createPolicyEngine, type DocketPolicyEngine } from "../../../src/policy/policy-engine.js";

/** A workspace holding a docket.yaml, its home, and the engine the CLI would build from it. */
export interface InitEngine {
  readonly ws: string;
  readonly home: string;
  readonly engine: DocketPolicyEngine;
  /** Remove the workspace and the home. */
  dispose(): Promise<void>;
}

/**
 * Write `config(ws)` as docket.yaml in a fresh workspace (after `prepare` filled it), and build
 * the policy engine as the CLI does: the project's layers and docket's self-protection.
 *
 * @example
 * ```ts
 * const { engine, dispose } = await initEngine(() => INITIAL_CONFIG);
 * ```
 */
export async function initEngine(
  config: (ws: string) => string,
  prepare: (ws: string) => Promise<void> = async () => {},
): Promise<InitEngine> {
  const ws = await realpath(await mkdtemp(join(tmpdir(), "docket-init-policy-")));
  const home = await realpath(await mkdtemp(join(tmpdir(), "docket-init-home-")));
  await prepare(ws);
  await writeFile(join(ws, "docket.yaml"), config(ws));
  const layers = loadPolicyFiles({ projectFile: join(ws, "docket.yaml"), env: { HOME: home } });
  const loaded = loadConfig(join(ws, "docket.yaml"));
  const engine = await createPolicyEngine({
    layers,
    workspace: ws,
    home,
    protection: docketProtection({
      storeUrl: "sqlite:.docket/docket.db",
      configFile: loaded.file,
      layers,
      sections: loaded.sections,
      workspace: ws,
      cwd: ws,
      env: { HOME: home },
    }),
  });
  return {
    ws,
    home,
    engine,
    dispose: async () => {
      await rm(ws, { recursive: true, force: true });
      await rm(home, { recursive: true, force: true });
    },
  };
}
