/**
 * A value now (SQLite) or later (PostgreSQL): what an engine's methods return, so the SQLite
 * engine on the synchronous `node:sqlite` costs no promise per call.
 *
 * @example
 * ```ts
 * async function count(rows: () => Awaitable<unknown[]>): Promise<number> {
 *   return (await rows()).length;
 * }
 * ```
 */
export type Awaitable<T> = T | Promise<T>;
