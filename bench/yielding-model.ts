/**
 * One turn of the event loop, as a reply arriving from the network gives every caller. Every
 * fake model in bench/ yields once per call (issue 38): docket's scripted model does it itself,
 * and the fakes of bench/ (`workloadModel`, `timedModel`) call this before the span they time. A
 * fake that never yields lets work deferred to the event loop (docket's group commit) gather a
 * whole run's calls into one commit, which no real model allows; test/bench/fake-models-yield
 * checks each of them.
 *
 * @example
 * ```ts
 * await nextTurnOfTheEventLoop();
 * ```
 */
export const nextTurnOfTheEventLoop = (): Promise<void> =>
  new Promise<void>((resolve) => setImmediate(resolve));
