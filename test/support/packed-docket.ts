import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { inject } from "vitest";

const exec = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));

/** A project into which the packed docket tarball was installed with npm, as a user would. */
export interface PackedProject {
  /** The project folder (its node_modules holds docket and what npm installed with it). */
  readonly dir: string;
  /** The installed CLI: `node_modules/.bin/docket`, what `npx docket` runs there. */
  readonly bin: string;
  /** The tarball `npm pack` made. */
  readonly tarball: string;
  /** What `npm i` printed on standard error (warnings). Empty for the copy with peers. */
  readonly installWarnings: string;
}

/** What a run of the installed CLI gave. */
export interface CliOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The optional peers the full project installs, at the versions docket is tested with (its own
 * devDependencies pin them).
 */
export const OPTIONAL_PEERS: readonly string[] = Object.keys(
  (
    JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      peerDependencies: Record<string, string>;
    }
  ).peerDependencies,
);

function devVersion(name: string): string {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  const version = manifest.devDependencies[name];
  if (version === undefined) throw new Error(`${name} is not a devDependency of docket`);
  return version;
}

// One folder per packed content and Node ABI: every test file of a run (and every worker) shares
// it, and a later run of the same sources reuses it instead of installing again.
async function pack(): Promise<{ tarball: string; base: string }> {
  const out = join(tmpdir(), `docket-pack-${process.pid}-${Date.now()}`);
  mkdirSync(out, { recursive: true });
  // CI packs this checkout once (.ci/run) and every Node's run installs that tarball: a pack
  // builds, and the build's output is the same JavaScript on every Node.
  const given = process.env.DOCKET_TEST_TARBALL;
  if (given) {
    const tarball = join(out, basename(given));
    cpSync(given, tarball);
    return { tarball, base: packedBase(tarball) };
  }
  // `npm pack` runs `prepare` (the build): the tarball holds what this checkout builds now. It
  // builds in a copy, so the checkout's own dist/, which other test files read while this one
  // packs, is never half rebuilt under them.
  const copy = join(out, "checkout");
  const leftOut = new Set(["node_modules", ".git", "dist", ".docket", ".bench-build", ".tools"]);
  cpSync(root, copy, {
    recursive: true,
    filter: (source) => !leftOut.has(basename(source)),
  });
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"), "dir");
  const { stdout } = await exec("npm", ["pack", "--json", "--pack-destination", out], {
    cwd: copy,
    maxBuffer: 64 * 1024 * 1024,
  });
  rmSync(copy, { recursive: true, force: true });
  const [packed] = JSON.parse(stdout) as { filename: string }[];
  if (!packed) throw new Error("npm pack reported no tarball");
  const tarball = join(out, packed.filename);
  return { tarball, base: packedBase(tarball) };
}

/** The install folder of a tarball's content on this Node's ABI. */
function packedBase(tarball: string): string {
  const hash = createHash("sha256")
    .update(readFileSync(tarball))
    .update(process.versions.modules)
    .digest("hex")
    .slice(0, 16);
  return join(tmpdir(), `docket-packed-${USER}-${hash}`);
}

/** The lock's holder is a process that is gone (killed mid-pack): its lock counts for nothing. */
function heldByTheGone(lock: string): boolean {
  const pid = Number(readFileSync(join(lock, "pid"), { encoding: "utf8", flag: "r" }).trim());
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

// Each user's own packs, installs and lock: another user's are neither writable nor theirs to
// take over (a run as a normal user beside one as root, on one machine).
const USER = `u${process.getuid?.() ?? 0}`;

/** Wait for `lock` (a directory, made atomically) to be ours, then run `work` and release it. */
async function exclusively<T>(lock: string, work: () => Promise<T>): Promise<T> {
  for (let waited = 0; ; waited += 250) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      break;
    } catch {
      // A test run killed while it packed leaves its lock: taken over once its process is gone.
      try {
        if (heldByTheGone(lock)) rmSync(lock, { recursive: true, force: true });
      } catch {
        // Not written yet, or just released: wait as for a live holder.
      }
      if (waited > 15 * 60_000) throw new Error(`${lock} held for 15 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

const npmQuiet = ["--no-audit", "--no-fund", "--prefer-offline"];

/** Installs of other contents left from runs more than six hours ago: about 100 MB each. */
function removeStaleInstalls(): void {
  const stale = Date.now() - 6 * 3600_000;
  for (const name of readdirSync(tmpdir())) {
    if (!/^docket-pack(ed)?-/.test(name)) continue; // the run files too
    const dir = join(tmpdir(), name);
    const stat = statSync(dir, { throwIfNoEntry: false });
    // Another user's are theirs to clean.
    if (stat && stat.uid === process.getuid?.() && stat.mtimeMs < stale) {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

async function install(base: string, tarball: string): Promise<void> {
  removeStaleInstalls();
  const lean = join(base, "lean");
  const full = join(base, "full");
  rmSync(base, { recursive: true, force: true });
  mkdirSync(lean, { recursive: true });
  writeFileSync(
    join(lean, "package.json"),
    '{ "name": "app", "private": true, "type": "module" }\n',
  );
  const { stderr } = await exec("npm", ["i", ...npmQuiet, tarball], {
    cwd: lean,
    maxBuffer: 64 * 1024 * 1024,
  });
  writeFileSync(join(base, "lean-warnings.txt"), stderr);
  // The full project: the same install plus every optional peer (no second native build).
  cpSync(lean, full, { recursive: true, verbatimSymlinks: true });
  const peers = OPTIONAL_PEERS.map((name) => `${name}@${devVersion(name)}`);
  await exec("npm", ["i", ...npmQuiet, ...peers], { cwd: full, maxBuffer: 64 * 1024 * 1024 });
  writeFileSync(join(base, "ready"), tarball);
}

let installed: Promise<string> | undefined;

/** Pack docket and install it (once per test run, content and Node ABI); resolves to the folder. */
function installedBase(): Promise<string> {
  installed ??= (async () => {
    const lock = join(tmpdir(), `docket-packed-${USER}.lock`);
    // The first worker of this run packs; the others read which install it settled on.
    const runFile = join(tmpdir(), `docket-packed-run-${inject("packRunId") ?? process.pid}`);
    return exclusively(lock, async () => {
      const known = existsSync(runFile) ? readFileSync(runFile, "utf8") : "";
      if (known !== "" && existsSync(join(known, "ready"))) return known;
      const { tarball, base } = await pack();
      if (!existsSync(join(base, "ready"))) await install(base, tarball);
      else rmSync(join(tarball, ".."), { recursive: true, force: true });
      writeFileSync(runFile, base);
      return base;
    });
  })();
  return installed;
}

/**
 * docket as a user gets it: `npm pack` of this checkout, installed with `npm i TARBALL` into a
 * fresh project (`lean`: docket alone), and a copy with every optional peer added (`full`). The
 * first call in a test run packs and installs (a native build: about a minute); later calls,
 * in any worker, reuse it. Give the first call's hook a long timeout.
 *
 * @example
 * ```ts
 * const project = await packedDocket("lean");
 * const { stdout } = await runPacked(project, ["demo"]);
 * ```
 */
export async function packedDocket(which: "lean" | "full"): Promise<PackedProject> {
  const base = await installedBase();
  const dir = join(base, which);
  return {
    dir,
    bin: join(dir, "node_modules/.bin/docket"),
    tarball: readFileSync(join(base, "ready"), "utf8"),
    installWarnings: which === "lean" ? readFileSync(join(base, "lean-warnings.txt"), "utf8") : "",
  };
}

/**
 * Run the installed CLI (`node_modules/.bin/docket ARGS`) in `cwd` (default: the project), with
 * HOME and docket's own settings pointed inside it. Never throws on a non-zero exit.
 *
 * @example
 * ```ts
 * const { code, stderr } = await runPacked(project, ["policy", "check", "run_command", '{"command":"ls"}']);
 * ```
 */
export async function runPacked(
  project: PackedProject,
  args: readonly string[],
  {
    cwd = project.dir,
    env = {},
    input,
  }: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): Promise<CliOutcome> {
  const child = exec(project.bin, [...args], {
    cwd,
    env: {
      ...process.env,
      HOME: cwd,
      XDG_CONFIG_HOME: join(cwd, ".config"),
      DOCKET_CONFIG: "",
      DOCKET_STORE: "",
      NO_COLOR: "1",
      OTEL_EXPORTER_OTLP_ENDPOINT: "",
      ...env,
    },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (input !== undefined) child.child.stdin?.end(input);
  else child.child.stdin?.end();
  return child.then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: typeof error.code === "number" ? error.code : 1,
      stdout: error.stdout ?? "",
      stderr: error.stderr ?? "",
    }),
  );
}

/** Every installed package folder under `dir`/node_modules (scoped ones as `@scope/name`). */
export function installedPackages(dir: string): string[] {
  const modules = join(dir, "node_modules");
  return readdirSync(modules).flatMap((name) =>
    name.startsWith("@")
      ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`)
      : name.startsWith(".")
        ? []
        : [name],
  );
}
