import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { build } from "esbuild";

/** A worker script that another user can run: built JS in a world-readable folder of its own. */
export interface ForeignUserWorker {
  /** Why another user cannot reach the worker's folder (a closed temporary folder), if so. */
  readonly unreachable: string | undefined;
  /** Run the worker as `uid`/`gid` with `args`; its stdout and stderr, joined and trimmed. */
  runAs(ids: { uid: number; gid: number }, args: readonly string[]): string;
  /** Remove the worker's folder. */
  remove(): void;
}

// Native or optional packages cannot be bundled: they would be copied beside the bundle, only
// the files they load at run time, so the worker needs nothing from the checkout, which its owner
// may keep unreadable to others (a clone in a 0700 folder, /root). The store's SQLite is Node's
// own (node:sqlite), so there is none today.
const nativePackages: Record<string, readonly string[]> = {};

const require = createRequire(import.meta.url);

function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

// Another user reaches the folder only if every folder above it lets others pass (o+x).
function closedAncestor(path: string): string | undefined {
  for (let at = dirname(path); ; at = dirname(at)) {
    if ((statSync(at).mode & 0o001) === 0) return at;
    if (dirname(at) === at) return undefined;
  }
}

function openToAll(path: string): void {
  const mode = statSync(path).isDirectory() ? 0o755 : 0o644;
  chmodSync(path, mode);
  if (mode === 0o755) for (const entry of readdirSync(path)) openToAll(join(path, entry));
}

/**
 * Bundle `entry` (a TypeScript worker) into a fresh folder under the system's temporary folder
 * that every user can read, so a test running as root can start it as another user wherever
 * the checkout lives. The worker runs with plain `node`: no loader from the checkout.
 *
 * @example
 * ```ts
 * const worker = await foreignUserWorker(fileURLToPath(new URL("./fixtures/w.ts", import.meta.url)));
 * worker.runAs({ uid: 65534, gid: 65534 }, ["sqlite:/tmp/x.db"]);
 * worker.remove();
 * ```
 */
export async function foreignUserWorker(entry: string): Promise<ForeignUserWorker> {
  const dir = mkdtempSync(join(tmpdir(), "docket-foreign-worker-"));
  const script = join(dir, "worker.mjs");
  await build({
    entryPoints: [entry],
    outfile: script,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // pg is plain JS and bundles; its optional native half is never loaded here.
    external: [...Object.keys(nativePackages), "pg-native"],
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: "silent",
  });
  for (const [name, files] of Object.entries(nativePackages)) {
    const from = packageDir(name);
    for (const file of files) {
      const to = join(dir, "node_modules", name, file);
      mkdirSync(dirname(to), { recursive: true });
      cpSync(join(from, file), to, { recursive: true });
    }
  }
  // The Node that runs the tests may itself sit where that user cannot reach (CI unpacks its
  // Nodes inside the clone): then the worker gets a copy of it, in its own open folder.
  const node = closedAncestor(process.execPath) ? join(dir, "node") : process.execPath;
  if (node !== process.execPath) cpSync(process.execPath, node);
  openToAll(dir);
  if (node !== process.execPath) chmodSync(node, 0o755);
  const closed = closedAncestor(dir);
  return {
    unreachable: closed && `${closed} is closed to other users, so no worker there can run as one`,
    runAs: ({ uid, gid }, args) => {
      const run = spawnSync(node, [script, ...args], {
        uid,
        gid,
        // The test's own folder may be closed to that user; the worker's is not.
        cwd: dir,
        encoding: "utf8",
        timeout: 30_000,
      });
      return `${run.stdout}${run.stderr}${run.error ? String(run.error) : ""}`.trim();
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
