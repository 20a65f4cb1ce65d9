import type { Command } from "commander";
import { hashToken } from "../../approval/approver-directory.js";
import { generateToken } from "../../mcp/bearer-token.js";

/**
 * Register `docket token [--sha256]`: print a fresh bearer token (32 random bytes, base64url: 43
 * characters, well over the 22 docket requires) for `DOCKET_GATEWAY_TOKEN` or an approver's
 * `token_env`. With `--sha256`, a second line holds its SHA-256 for `token_sha256`, so the token
 * itself need not sit in a config file.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerTokenCommand(program);
 * // $ export DOCKET_GATEWAY_TOKEN=$(docket token)
 * ```
 */
export function registerTokenCommand(program: Command): Command {
  return program
    .command("token")
    .description("Print a new random bearer token (for DOCKET_GATEWAY_TOKEN or token_env)")
    .option("--sha256", "also print its SHA-256 (for an approver's token_sha256)")
    .action((options: { sha256?: boolean }) => {
      const token = generateToken();
      process.stdout.write(`${token}\n`);
      if (options.sha256) process.stdout.write(`sha256 ${hashToken(token)}\n`);
    });
}
