import { join } from "node:path";
import { openStore } from "../../../src/store/open-store.js";
import type { Store } from "../../../src/store/store.js";
import { call, turn, writeScriptFile } from "../../loop/support/model-script.js";
import { type ChildOutcome, runDocketIn } from "../../loop/support/run-child.js";

/** BOB_TOKEN, as `askingProjectYaml`'s approver bob reads it. */
export const BOB_ENV = { BOB_TOKEN: "bob-secret-token-0123456789abcdef" };

/**
 * `docket run` from source in `cwd` (its docket.yaml written already), a scripted model making
 * one call, and the run's store opened beside it so a test can answer what the run waits for.
 */
export async function startAskingRun(
  cwd: string,
  callId: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ running: Promise<ChildOutcome>; store: Store }> {
  const script = await writeScriptFile(cwd, [
    turn("Fetching.", call(callId, tool, args)),
    turn("Done."),
  ]);
  const running = runDocketIn(cwd, ["run", "Fetch.", "--model", `scripted:${script}`], {
    env: BOB_ENV,
  });
  const store = await openStore(`sqlite:${join(cwd, ".docket", "docket.db")}`, {
    mustExist: false,
  });
  return { running, store };
}
