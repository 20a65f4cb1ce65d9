// A docket-like parent with one busy stdio upstream that ignores SIGTERM and never reads stdin:
// prints the upstream's process group id, then waits to be killed.
// Usage: node --import tsx busy-upstream-parent.ts
import { ProcessTransport } from "../../../src/mcp/process-transport.js";

const transport = new ProcessTransport({
  command: "/bin/sh",
  args: ["-c", "trap '' TERM; while :; do :; done"],
});
await transport.start();
console.log(`GROUP ${transport.pid}`);
setInterval(() => undefined, 1000);
