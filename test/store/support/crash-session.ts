import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../../src/store/open-store.js";

/** A SQLite store with one session and an empty side-effect log, for crash tests. */
export interface CrashSession {
  readonly url: string;
  readonly sessionId: string;
  /** The file handlers append `callId` lines to, so a test sees what ran and how often. */
  readonly effects: string;
}

/**
 * Make a fresh store (in its own temp directory) with one session, for workers to crash into.
 *
 * @example
 * ```ts
 * const { url, sessionId, effects } = await crashSession("docket-crash-");
 * ```
 */
export async function crashSession(prefix: string): Promise<CrashSession> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const url = `sqlite:${join(dir, "docket.db")}`;
  const effects = join(dir, "effects.log");
  await writeFile(effects, "");
  const setup = await openStore(url);
  const session = await setup.createSession({ principal: "agent", configHash: "crash" });
  await setup.close();
  return { url, sessionId: session.id, effects };
}
