/**
 * A module imported the first time it is asked for, then kept: a cold process that never
 * needs it never loads it (and what it imports). A failed import is retried on the next ask
 * rather than remembered.
 *
 * @example
 * ```ts
 * const handlers = lazyImport(() => import("../builtin/files/read-file.handler.js"));
 * const { readFile } = await handlers();
 * ```
 */
export function lazyImport<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    if (loading === undefined) {
      const started = load();
      loading = started;
      started.catch(() => {
        if (loading === started) loading = undefined;
      });
    }
    return loading;
  };
}
