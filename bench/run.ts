// First: the benches define tools with terse descriptions; their lint warnings are not figures.
import "../src/cli/quiet-tool-lint.js";

// Each bench's module is loaded only when it runs: a module loaded for another bench (its SDKs,
// servers, hooks) made the process slower for all (the store's read call: 29-36 µs with every
// bench loaded, 25-26 µs alone, 2026-12-05).
const benches: Record<string, () => Promise<void>> = {
  checkpoint: async () => (await import("./checkpoint.js")).benchCheckpoint(),
  builtin: async () => (await import("./builtin.js")).benchBuiltin(),
  policy: async () => (await import("./policy.js")).benchPolicy(),
  selfprotect: async () => (await import("./self-protection.js")).benchSelfProtection(),
  store: async () => (await import("./store.js")).benchStore(),
  mcp: async () => (await import("./mcp.js")).benchMcp(),
  loop: async () => (await import("./loop.js")).benchLoop(),
  soak: async () => (await import("./soak.js")).benchSoak(),
  console: async () => (await import("./console.js")).benchConsole(),
  telemetry: async () => (await import("./telemetry.js")).benchTelemetry(),
  hook: async () => (await import("./hook.js")).benchHook(),
  cold: async () => (await import("./cold.js")).benchCold(),
  firstcalls: async () => (await import("./first-calls.js")).benchFirstCalls(),
  network: async () => (await import("./sandbox-network.js")).benchSandboxNetwork(),
  relayfloor: async () => (await import("./relay-floor.js")).benchRelayFloor(),
  commitfloor: async () => (await import("./commit-floor.js")).benchCommitFloor(),
  writerthread: async () => (await import("./writer-thread.js")).benchWriterThread(),
  verify: async () => (await import("./verify.js")).benchVerify(),
};

const wanted = process.argv.slice(2);
for (const [name, bench] of Object.entries(benches)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  // The soak takes minutes and a PostgreSQL cluster: only when asked for by name.
  if (wanted.length === 0 && name === "soak") continue;
  await bench();
}
