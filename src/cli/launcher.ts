#!/usr/bin/env node
// The built CLI's first module (dist/src/cli/main.js, what `docket` and every registered hook
// line run), bundled by scripts/bundle.mjs with the daemon's hook client inside it: a hook call
// the daemon answers loads this one file and nothing else of docket. Each further module file,
// above all a process's first dynamic import, costs a hook about 1.5-2 ms, a fifth of issue
// 38's margin over a minimal hook (docs/adr/0098-the-hook-client-in-the-launcher.md). Anything
// else goes on to bin/main.js (src/cli/main.ts). Nothing here loads node:net before a hook call
// asks the daemon: a command with no use for the network does not pay for it.
import {
  answerAsDaemonClient,
  answerOnUnsupportedNode,
  isDaemonClientCall,
} from "../hook/hook-client-main.js";
import { unsupportedNodeReason } from "./unsupported-node.js";

const argv = process.argv.slice(2);
// Before anything can fail on what an older Node lacks. A hook call still answers in its host's
// way: a deny for a blocking event, a pass for a settle event.
const reason = unsupportedNodeReason(process.versions.node);
if (reason !== undefined) {
  const code = await answerOnUnsupportedNode(argv, reason).catch(() => {
    process.stderr.write(`docket: ${reason}; the call is denied.\n`);
    return 2;
  });
  if (code === undefined) process.stderr.write(`docket: ${reason}.\n`);
  process.exit(code ?? 1);
}
// Everything else: main.ts, which the built CLI ships as bin/main.js (scripts/bundle-plugins.mjs,
// launcherApart).
if (isDaemonClientCall(argv)) await answerAsDaemonClient(argv);
else await import("./main.js");
