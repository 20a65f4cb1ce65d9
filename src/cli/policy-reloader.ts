import { createHash } from "node:crypto";
import { existsSync, type FSWatcher, readFileSync, watch } from "node:fs";
import { basename, dirname } from "node:path";
import { userConfigFile } from "../config/user-config-file.js";
import type { PolicyHolder } from "../policy/policy-holder.js";
import type { Store } from "../store/store.js";
import { type PolicyFileHash, policyReloaded } from "../system-events/policy-reloaded.js";
import type { RuntimePolicy } from "./runtime-policy.js";

/** What `watchPolicyFiles` needs: the files, how to load them, where the policy goes. */
export interface PolicyWatchOptions {
  /** The files the policy was read from (absolute). */
  readonly files: readonly string[];
  readonly holder: PolicyHolder;
  /** Where the reload events go (signed like every event). */
  readonly store: Pick<Store, "emit">;
  /** Build the policy again from the files; throws with file, line and reason when one is bad. */
  readonly load: () => Promise<RuntimePolicy>;
  /** One line for the operator per reload. */
  readonly log: (line: string) => void;
  /** How long to wait for an editor's writes to settle (default 150 ms). */
  readonly settleMs?: number;
}

/** SHA-256 of each file's bytes now; a file that cannot be read is named with `unreadable`. */
function hashFiles(files: readonly string[]): PolicyFileHash[] {
  return files.map((path) => {
    try {
      return { path, sha256: createHash("sha256").update(readFileSync(path)).digest("hex") };
    } catch {
      return { path, sha256: "unreadable" };
    }
  });
}

/**
 * Watch docket.yaml and the policy files and put a changed policy in force while docket runs.
 * A file that does not load keeps the old policy (never an empty one) and says why; each
 * reload, kept or not, is a signed `policy_reloaded` system event naming the files' hashes.
 * Folders are watched, not files: editors save by writing a new file and renaming it.
 *
 * @example
 * ```ts
 * import { openStore } from "docket";
 * import { createPolicyHolder } from "../policy/policy-holder.js";
 * import { loadCliConfig } from "./load-cli-config.js";
 * import { loadRuntimePolicy } from "./runtime-policy.js";
 * const load = () => loadRuntimePolicy(loadCliConfig({}), { env: process.env });
 * const first = await load();
 * const holder = createPolicyHolder(first.engine);
 * const store = await openStore(":memory:");
 * const stop = watchPolicyFiles({ files: first.files, holder, store, load, log: console.error });
 * stop();
 * ```
 */
export function watchPolicyFiles({
  files,
  holder,
  store,
  load,
  log,
  settleMs = 150,
}: PolicyWatchOptions): () => void {
  let watched = files;
  let last = JSON.stringify(hashFiles(watched));
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let watchers: FSWatcher[] = [];

  const reload = async () => {
    const hashes = hashFiles(watched);
    const seen = JSON.stringify(hashes);
    if (seen === last) return;
    last = seen;
    try {
      const next = await load();
      const { droppedGrants } = holder.replace(next.engine);
      const nowHashes = hashFiles(next.files);
      if (next.files.join("\0") !== watched.join("\0")) {
        watched = next.files;
        last = JSON.stringify(nowHashes);
        rewatch();
      }
      await store.emit(policyReloaded.event({ status: "reloaded", files: nowHashes }));
      log(
        `docket: policy reloaded from ${nowHashes.map((file) => file.path).join(", ")}${droppedGrants.length > 0 ? `; session grants the new policy refuses were dropped: ${droppedGrants.join(", ")}` : ""}`,
      );
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      log(`docket: the changed policy did not load, the old policy stays in force: ${reason}`);
      await store
        .emit(policyReloaded.event({ status: "kept", files: hashes, reason }))
        .catch((failure: unknown) =>
          log(`docket: the policy reload could not be recorded: ${(failure as Error).message}`),
        );
    }
  };

  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      // One reload at a time, in order: a second change waits for the first to be in force.
      running = running.then(reload, reload);
    }, settleMs);
  };

  function rewatch() {
    for (const watcher of watchers) watcher.close();
    const byFolder = new Map<string, Set<string>>();
    for (const file of watched) {
      const names = byFolder.get(dirname(file)) ?? new Set<string>();
      names.add(basename(file));
      byFolder.set(dirname(file), names);
    }
    watchers = [...byFolder].flatMap(([folder, names]) => {
      try {
        const watcher = watch(folder, { persistent: false }, (_event, name) => {
          if (name === null || names.has(String(name))) schedule();
        });
        watcher.on("error", () => undefined);
        return [watcher];
      } catch (error) {
        log(`docket: cannot watch ${folder} for policy changes: ${(error as Error).message}`);
        return [];
      }
    });
  }

  rewatch();
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
    watchers = [];
  };
}

/**
 * The policy's files and the user layer's config.yaml, when it exists: what a reload watches, so
 * that its approvers, MCP servers and rules reach a long-running daemon too.
 *
 * @example
 * ```ts
 * withUserConfig(["/work/app/docket.yaml"], { HOME: "/home/ada" }); // and ~/.config/docket/config.yaml if it exists
 * ```
 */
export function withUserConfig(files: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const user = userConfigFile(env);
  return existsSync(user) ? [...new Set([...files, user])] : [...files];
}
