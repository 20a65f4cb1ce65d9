import type { ChildProcess } from "node:child_process";
import { Server } from "node:net";

/** The port, on the sandbox's own loopback, where its processes find docket's proxy. */
export const SANDBOX_PROXY_PORT = 3128;

/** The sandbox's end of the IPC channel docket opens to it (`stdio[3]: "ipc"`). */
export const SANDBOX_CHANNEL_FD = 3;

// Runs first inside the sandbox, before any of the command's code: opens a listening socket on
// the sandbox's 127.0.0.1 (the only interface its network namespace has), hands it to docket over
// the IPC channel, closes its own copy and the channel, then runs the command and ends as it
// ends. docket then accepts the sandbox's connections itself, in its own process: there is no
// relay inside the sandbox, and nothing there the command could take over.
const BOOTSTRAP = `
const net = require("node:net"), cp = require("node:child_process");
const argv = process.argv.slice(1);
const fail = (e) => { process.stderr.write("docket: the network proxy could not start: " + e.message + "\\n"); process.exit(125); };
const server = net.createServer();
server.on("error", fail);
server.listen(${SANDBOX_PROXY_PORT}, "127.0.0.1", () => {
  process.send("docket-proxy-listener", server, (error) => {
    if (error) fail(error);
    server.close();
    process.disconnect();
    const env = { ...process.env };
    delete env.NODE_CHANNEL_FD;
    delete env.NODE_CHANNEL_SERIALIZATION_MODE;
    const child = cp.spawn(argv[0], argv.slice(1), { stdio: "inherit", env });
    const relay = (s) => child.kill(s);
    for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(s, relay);
    child.on("error", (e) => { process.stderr.write(e.message + "\\n"); process.exit(127); });
    child.on("exit", (code, signal) => {
      if (signal === null) process.exit(code ?? 1);
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    });
  });
});
`;

/**
 * The command line that runs `argv` inside the sandbox after the bootstrap has handed docket its
 * listening socket: `node -e BOOTSTRAP ARGV…`. `node` is a Node.js binary visible inside.
 *
 * @example
 * ```ts
 * listenerArgv("/usr/bin/node", ["bash", "-c", "npm ci"]); // ["/usr/bin/node", "-e", "…", "bash", "-c", "npm ci"]
 * ```
 */
export function listenerArgv(node: string, argv: readonly string[]): string[] {
  return [node, "-e", BOOTSTRAP, ...argv];
}

/**
 * Take the listening socket the sandbox's bootstrap sends over the child's IPC channel: the first
 * `net.Server` is passed to `adopt`; the bootstrap then closes the channel before the command
 * starts, so nothing the command runs can reach it.
 *
 * @example
 * ```ts
 * import { spawn } from "node:child_process";
 * declare const plan: { file: string; args: string[] }; // a ready LaunchPlan
 * declare const proxy: import("./network-proxy.js").NetworkProxy;
 * const child = spawn(plan.file, plan.args, { stdio: ["ignore", "pipe", "pipe", "ipc"] });
 * receiveListener(child, (server) => proxy.adopt(server));
 * ```
 */
export function receiveListener(child: ChildProcess, adopt: (server: Server) => void): void {
  let adopted = false;
  // The bootstrap closes the channel itself once docket has the socket, before the command runs
  // (closing it from this side while the handle's acknowledgement is under way leaves the
  // channel open for good). Anything after the first socket is ignored.
  child.on("message", (message: unknown, handle: unknown) => {
    if (adopted || message !== "docket-proxy-listener" || !(handle instanceof Server)) return;
    adopted = true;
    adopt(handle);
  });
}

/**
 * The variables that point npm, git, curl, pip and Node's own fetch (`NODE_USE_ENV_PROXY`, Node
 * 24+) at the proxy, and the bootstrap at its channel. The sandbox's own loopback stays direct: a
 * server the command starts itself is reached without the proxy.
 *
 * @example
 * ```ts
 * proxyEnv().HTTPS_PROXY; // "http://127.0.0.1:3128"
 * ```
 */
export function proxyEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
  const direct = "localhost,127.0.0.1,::1";
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    ALL_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    all_proxy: url,
    NO_PROXY: direct,
    no_proxy: direct,
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    NODE_USE_ENV_PROXY: "1",
    NODE_CHANNEL_FD: String(SANDBOX_CHANNEL_FD),
  };
}
