import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A throwaway PostgreSQL cluster of one test file, which it may stop and restart at will. */
export interface OwnPostgres {
  readonly url: string;
  /** `pg_ctl stop -m immediate`: every connection drops at once, as in a crash. */
  crash(): void;
  start(): void;
  /** Stop (immediate) and remove the cluster's files. */
  destroy(): void;
}

function pgBin(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, "bin");
    if (existsSync(join(bin, "pg_ctl"))) return bin;
  }
  return undefined;
}

/** True when this machine can run `ownPostgres` (PostgreSQL binaries, root to switch user). */
export const canOwnPostgres: boolean = pgBin() !== undefined && process.getuid?.() === 0;

/**
 * Create and start a cluster on `port` (127.0.0.1, trust auth), as the `postgres` user.
 *
 * @example
 * ```ts
 * const pg = ownPostgres(5447);
 * pg.crash(); pg.start();
 * ```
 */
export function ownPostgres(port: number): OwnPostgres {
  const bin = pgBin();
  if (!bin) throw new Error("PostgreSQL binaries are not installed");
  const data = mkdtempSync(join(tmpdir(), "docket-own-pg-"));
  const ids = execFileSync("id", ["-u", "postgres"]).toString().trim();
  const gid = execFileSync("id", ["-g", "postgres"]).toString().trim();
  chownSync(data, Number(ids), Number(gid));
  const asPostgres = (command: string) =>
    // From the data folder it owns: the test's own folder may be a clone closed to other users.
    execFileSync("su", ["postgres", "-c", command], {
      cwd: data,
      stdio: ["ignore", "ignore", "pipe"],
    });
  asPostgres(`${bin}/initdb -D ${data}/db -U postgres --auth=trust -E UTF8 --locale=C.UTF-8`);
  const start = () =>
    asPostgres(
      `${bin}/pg_ctl -D ${data}/db -l ${data}/server.log -o "-p ${port} -c listen_addresses=127.0.0.1 -k ${data}" -w start`,
    );
  const stop = () => asPostgres(`${bin}/pg_ctl -D ${data}/db -m immediate -w stop`);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    crash: stop,
    start,
    destroy: () => {
      try {
        stop();
      } catch {
        // already stopped
      }
      rmSync(data, { recursive: true, force: true });
    },
  };
}
