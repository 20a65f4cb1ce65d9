// First: the benches define tools with terse descriptions; their lint warnings are not figures.
import "../src/cli/quiet-tool-lint.js";
import { benchBuiltin } from "./builtin.js";
import { benchCheckpoint } from "./checkpoint.js";
import { benchCold } from "./cold.js";
import { benchConsole } from "./console.js";
import { benchHook } from "./hook.js";
import { benchLoop } from "./loop.js";
import { benchMcp } from "./mcp.js";
import { benchPolicy } from "./policy.js";
import { benchSelfProtection } from "./self-protection.js";
import { benchSoak } from "./soak.js";
import { benchStore } from "./store.js";
import { benchTelemetry } from "./telemetry.js";

const benches: Record<string, () => Promise<void>> = {
  checkpoint: () => benchCheckpoint(),
  builtin: () => benchBuiltin(),
  policy: () => benchPolicy(),
  selfprotect: () => benchSelfProtection(),
  store: () => benchStore(),
  mcp: () => benchMcp(),
  loop: () => benchLoop(),
  soak: () => benchSoak(),
  console: () => benchConsole(),
  telemetry: () => benchTelemetry(),
  hook: () => benchHook(),
  cold: () => benchCold(),
  firstcalls: async () => (await import("./first-calls.js")).benchFirstCalls(),
  network: async () => (await import("./sandbox-network.js")).benchSandboxNetwork(),
  relayfloor: async () => (await import("./relay-floor.js")).benchRelayFloor(),
  commitfloor: async () => (await import("./commit-floor.js")).benchCommitFloor(),
  verify: async () => (await import("./verify.js")).benchVerify(),
};

const wanted = process.argv.slice(2);
for (const [name, bench] of Object.entries(benches)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  // The soak takes minutes and a PostgreSQL cluster: only when asked for by name.
  if (wanted.length === 0 && name === "soak") continue;
  await bench();
}
