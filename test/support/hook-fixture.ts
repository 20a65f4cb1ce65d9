import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HookReply } from "../../src/hook/hook-answer.js";
import type { HostName } from "../../src/hook/host-registry.js";
import { runHook } from "../../src/hook/run-hook.js";

/** A temp dir with a docket.yaml and a SQLite store, and `runHook` pointed at both. */
export interface HookFixture {
  readonly dir: string;
  readonly config: string;
  readonly storeUrl: string;
  /** One hook call of `host` with `payload` (an object is sent as its JSON). */
  hook(host: HostName, payload: unknown, store?: string): Promise<HookReply>;
  remove(): Promise<void>;
}

/**
 * Make the fixture of the in-process hook tests: `docket.yaml` holds `config` (YAML lines).
 *
 * @example
 * ```ts
 * const f = await hookFixture("hosts", ["policy:", "  rules: []"]);
 * await f.hook("claude-code", { hook_event_name: "PreToolUse", … });
 * ```
 */
export async function hookFixture(name: string, config: readonly string[]): Promise<HookFixture> {
  const dir = await mkdtemp(join(tmpdir(), `docket-hook-${name}-`));
  const file = join(dir, "docket.yaml");
  const storeUrl = `sqlite:${join(dir, "docket.db")}`;
  await writeFile(file, [...config, ""].join("\n"));
  return {
    dir,
    config: file,
    storeUrl,
    hook: (host, payload, store = storeUrl) =>
      runHook({
        host,
        text: typeof payload === "string" ? payload : JSON.stringify(payload),
        config: file,
        store,
      }),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
