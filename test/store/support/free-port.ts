import { createServer } from "node:net";

/**
 * A TCP port free on 127.0.0.1 right now (the OS picks it): for a server a test starts itself,
 * so that two test runs on one machine never fight over a fixed number.
 *
 * @example
 * ```ts
 * const server = ownPostgres(await freePort());
 * ```
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no port was given"))));
    });
  });
}
