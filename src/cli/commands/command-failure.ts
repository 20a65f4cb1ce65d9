import { CommanderError } from "commander";
import { maskSecrets } from "../../shared/mask-secrets.js";

/**
 * End a command with a non-zero exit: print `message` on stderr, set `process.exitCode`, and
 * throw a CommanderError carrying the code, so that `runCli` (which returns the code it is
 * given) and a plain `parseAsync` caller both exit with it. Never calls `process.exit`. Credentials
 * in the message are masked (`maskSecrets`).
 *
 * @example
 * ```ts
 * declare const verdict: { ok: boolean; seq?: number }; // the chain check
 * if (!verdict.ok) commandFailure(1, "docket.audit.verify", `broken: event ${verdict.seq}`);
 * ```
 */
export function commandFailure(exitCode: number, code: string, message: string): never {
  const masked = maskSecrets(message);
  process.stderr.write(`${masked}\n`);
  process.exitCode = exitCode;
  throw new CommanderError(exitCode, code, masked);
}
