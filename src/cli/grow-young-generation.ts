/**
 * The V8 flag that lets the young generation grow in larger steps. V8 starts a process with a
 * 1 MB semi-space and doubles it after each scavenge that finds it full; a one-turn `docket run`
 * allocates about 15 MB while it loads, so it scavenged six or seven times on its way there and
 * promoted enough to start an old-space mark-compact. Growing eightfold brings that to three or
 * four scavenges and no mark-compact: about 25 ms less CPU a run, RSS within 2 MB
 * (docs/adr/0071-run-start-up-cpu.md). `--max-semi-space-size` and `--min-semi-space-size` would
 * do as much but only from the command line: V8 sizes its heap once, as the process starts.
 */
export const YOUNG_GENERATION_FLAGS = "--semi-space-growth-factor=8";

/**
 * Let V8's young generation grow eightfold at each step instead of twofold, for the rest of the
 * process: start-up garbage it would otherwise scavenge again and again dies in one larger
 * space. Only the CLI calls it, for `docket run` (the library leaves V8's flags to its host,
 * ADR 0019; the policy check's code cache is valid only under the flags it was made with,
 * ADR 0022).
 *
 * @example
 * ```ts
 * growYoungGeneration(); // before the command's modules load
 * ```
 */
export function growYoungGeneration(): void {
  process.getBuiltinModule("node:v8").setFlagsFromString(YOUNG_GENERATION_FLAGS);
}
