import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A PostgreSQL cluster of its own, on a loopback port, that the soak can stop and start. */
export interface ThrowawayPostgres {
  readonly url: string;
  /** Stop at once (`-m immediate`, like a crash) and start again. */
  restart(): void;
  destroy(): void;
}

function pgbin(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(root, v, "bin")).find((d) => existsSync(join(d, "pg_ctl")));
}

/**
 * Start a throwaway cluster as the `postgres` user (so: root only), or return undefined where
 * that cannot be done (not root, no PostgreSQL installed).
 *
 * @example
 * ```ts
 * const cluster = startThrowawayPostgres(5460);
 * cluster?.restart();
 * cluster?.destroy();
 * ```
 */
export function startThrowawayPostgres(port: number): ThrowawayPostgres | undefined {
  const bin = pgbin();
  if (!bin || process.getuid?.() !== 0) return undefined;
  const data = mkdtempSync(join(tmpdir(), "docket-soak-pg-"));
  const socket = mkdtempSync(join(tmpdir(), "docket-soak-sock-"));
  const id = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
  for (const dir of [data, socket]) chownSync(dir, id, gid);
  chmodSync(data, 0o700);
  const asPostgres = (command: string) =>
    execFileSync("su", ["postgres", "-c", command], { stdio: ["ignore", "ignore", "pipe"] });
  asPostgres(`${bin}/initdb -D ${data} -U postgres --auth=trust -E UTF8 --locale=C.UTF-8`);
  const start = () =>
    asPostgres(
      `${bin}/pg_ctl -D ${data} -l ${data}/server.log -o "-p ${port} -c listen_addresses=127.0.0.1 -k ${socket} -c max_connections=200" -w start`,
    );
  const stop = (mode: string) => asPostgres(`${bin}/pg_ctl -D ${data} -m ${mode} -w stop`);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart() {
      stop("immediate");
      start();
    },
    destroy() {
      try {
        stop("immediate");
      } catch {
        // Already stopped.
      }
      rmSync(data, { recursive: true, force: true });
      rmSync(socket, { recursive: true, force: true });
    },
  };
}
