import * as cel from "@marcbachmann/cel-js";

/**
 * The CEL package (`@marcbachmann/cel-js`), for `when:` conditions. In the library it is an
 * ordinary import. The CLI's bundle (scripts/bundle.mjs) replaces this module with a
 * synchronous require that esbuild evaluates on the first call, so a process whose policy has no
 * `when:` rule never runs CEL's module body (its function registry: a few ms of a cold `docket
 * policy check`, docs/adr/0021-cold-start-floor.md), while one that has them still compiles
 * them synchronously, at load.
 *
 * @example
 * ```ts
 * const environment = new (loadCel().Environment)();
 * ```
 */
export function loadCel(): typeof cel {
  return cel;
}
