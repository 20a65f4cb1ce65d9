/** The port, on the sandbox's own loopback, where its processes find docket's proxy. */
export const SANDBOX_PROXY_PORT = 3128;

// Runs inside the sandbox, before the command: listens on the sandbox's 127.0.0.1 (the only
// interface its network namespace has) and relays every connection, unread, to the proxy's Unix
// socket bound in from outside; then runs the command and ends as it ends. It decides nothing:
// a command that kills it, or talks to the socket itself, still meets the same proxy.
const FORWARDER = `
const net = require("node:net"), cp = require("node:child_process");
const [port, socket, ...argv] = process.argv.slice(1);
const server = net.createServer((inside) => {
  const outside = net.connect(socket);
  inside.on("error", () => outside.destroy());
  outside.on("error", () => inside.destroy());
  inside.pipe(outside);
  outside.pipe(inside);
});
server.on("error", (e) => { process.stderr.write("docket: the network proxy could not start: " + e.message + "\\n"); process.exit(125); });
server.listen(Number(port), "127.0.0.1", () => {
  const child = cp.spawn(argv[0], argv.slice(1), { stdio: "inherit" });
  const relay = (s) => child.kill(s);
  for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(s, relay);
  child.on("error", (e) => { process.stderr.write(e.message + "\\n"); process.exit(127); });
  child.on("exit", (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
});
`;

/**
 * The command line that runs `argv` inside the sandbox behind the forwarder: `node -e FORWARDER
 * PORT SOCKET ARGV…`. `node` is the path of a Node.js binary visible inside the sandbox.
 *
 * @example
 * ```ts
 * forwardedArgv("/usr/bin/node", "/tmp/docket-net-x/proxy.sock", ["bash", "-c", "npm ci"]);
 * // ["/usr/bin/node", "-e", "…", "3128", "/tmp/docket-net-x/proxy.sock", "bash", "-c", "npm ci"]
 * ```
 */
export function forwardedArgv(node: string, socketPath: string, argv: readonly string[]): string[] {
  return [node, "-e", FORWARDER, String(SANDBOX_PROXY_PORT), socketPath, ...argv];
}

/**
 * The variables that point npm, git, curl, pip and Node's own fetch (`NODE_USE_ENV_PROXY`, Node
 * 24+) at the proxy. The sandbox's own loopback stays direct: a server the command starts
 * itself is reached without the proxy.
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
  };
}
