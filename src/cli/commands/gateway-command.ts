import { type Command, CommanderError, InvalidArgumentError } from "commander";
import { generateToken } from "../../mcp/bearer-token.js";
import type { GatewayBackend } from "../../mcp/gateway-backend.js";
import { serveGatewayHttp } from "../../mcp/serve-gateway-http.js";
import { serveGatewayStdio } from "../../mcp/serve-gateway-stdio.js";
import { maskSecrets } from "../../shared/mask-secrets.js";
import { MIN_TOKEN_CHARS } from "../../shared/token-strength.js";
import { CONFIG_FLAG_HELP } from "./command-flags.js";

/** What `docket gateway` was asked for, as passed to `buildCheckpoint`. */
export interface GatewayCommandOptions {
  /** docket.yaml, when `--config` was given. */
  readonly config?: string;
}

/** What the gateway command needs from the rest of docket. */
export interface GatewayCommandDeps {
  /** Built-in tools + MCP upstreams + policy + store + approvals, from the config. */
  readonly buildCheckpoint: (options: GatewayCommandOptions) => Promise<GatewayBackend>;
  /** Where the address and a generated token are printed. Default: stderr (stdout may be MCP). */
  readonly stderr?: NodeJS.WritableStream;
  readonly env?: NodeJS.ProcessEnv;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) {
    throw new InvalidArgumentError("expected a port number (0-65535; 0 picks a free port)");
  }
  return port;
}

function parseMaxSessions(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 10_000) {
    throw new InvalidArgumentError("expected a number of sessions from 1 to 10000");
  }
  return n;
}

/** Settles on the first SIGINT or SIGTERM. */
function untilSignalled(): { promise: Promise<void>; dispose(): void } {
  let dispose = () => {};
  const promise = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    dispose = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    };
  });
  return { promise, dispose };
}

/**
 * Register `docket gateway [--config FILE] [--http PORT]`: an MCP server whose every
 * `tools/call` goes through the checkpoint. Over stdio by default (for editors and desktop
 * apps); with `--http`, Streamable HTTP on 127.0.0.1 behind a bearer token taken from
 * `DOCKET_GATEWAY_TOKEN` or generated and printed to stderr. It runs until stdin ends (stdio),
 * or SIGINT/SIGTERM.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * declare const buildFromConfig: (config: string | undefined) => Promise<import("../../mcp/gateway-backend.js").GatewayBackend>;
 * registerGatewayCommand(program, { buildCheckpoint: (options) => buildFromConfig(options.config) });
 * // $ docket gateway --http 8931
 * ```
 */
export function registerGatewayCommand(program: Command, deps: GatewayCommandDeps): Command {
  return program
    .command("gateway")
    .description("Serve every tool as an MCP server; each call passes the checkpoint")
    .option("--config <file>", CONFIG_FLAG_HELP)
    .option("--http <port>", "serve Streamable HTTP on 127.0.0.1:PORT instead of stdio", parsePort)
    .option(
      "--max-sessions <n>",
      "HTTP client sessions kept at once (default: gateway.max_sessions, else 256)",
      parseMaxSessions,
    )
    .action(async (options: { config?: string; http?: number; maxSessions?: number }) => {
      const stderr = deps.stderr ?? process.stderr;
      const env = deps.env ?? process.env;
      let backend: GatewayBackend;
      try {
        backend = await deps.buildCheckpoint(
          options.config === undefined ? {} : { config: options.config },
        );
      } catch (error) {
        const message = maskSecrets(String((error as Error)?.message ?? error));
        stderr.write(`docket gateway: ${message}\n`);
        throw new CommanderError(2, "docket.gateway", message);
      }
      const signalled = untilSignalled();
      try {
        if (options.http !== undefined) {
          const settings = backend.settings ?? {};
          const given = env.DOCKET_GATEWAY_TOKEN || undefined;
          if (
            settings.oauth === undefined &&
            given !== undefined &&
            given.length < MIN_TOKEN_CHARS
          ) {
            const message = `DOCKET_GATEWAY_TOKEN has ${given.length} characters; a bearer token needs at least ${MIN_TOKEN_CHARS} (about 128 bits). Make one with: docket token`;
            stderr.write(`docket gateway: ${message}\n`);
            throw new CommanderError(2, "docket.gateway", message);
          }
          const token = settings.oauth ? undefined : given || generateToken();
          const maxSessions = options.maxSessions ?? backend.maxSessions ?? settings.maxSessions;
          const gateway = await serveGatewayHttp(backend, {
            ...settings,
            ...(token === undefined ? {} : { token }),
            port: options.http,
            ...(maxSessions === undefined ? {} : { maxSessions }),
          });
          stderr.write(`docket gateway: listening on ${gateway.url}\n`);
          if (token !== undefined && token !== given)
            stderr.write(`docket gateway: bearer token ${token}\n`);
          if (settings.oauth !== undefined)
            stderr.write(`docket gateway: accepting tokens from ${settings.oauth.issuer}\n`);
          await signalled.promise;
          await gateway.close();
        } else {
          const gateway = await serveGatewayStdio(backend);
          await Promise.race([gateway.closed, signalled.promise]);
          await gateway.close();
        }
      } finally {
        signalled.dispose();
        await backend.close();
      }
    });
}
