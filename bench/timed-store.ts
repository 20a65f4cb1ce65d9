import type { Store } from "../src/store/store.js";

/**
 * A store whose every method call is timed until its promise settles, by method name. The loop
 * awaits nearly every store call in turn, so the sum is close to the time the run spent waiting
 * on the store; an emit that is not awaited can overlap other work, so treat it as an estimate.
 */
export function timedStore(store: Store): { store: Store; byMethod: Map<string, number> } {
  const byMethod = new Map<string, number>();
  const add = (name: string, ms: number) => byMethod.set(name, (byMethod.get(name) ?? 0) + ms);
  const proxy = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || typeof key !== "string") return value;
      return (...args: unknown[]) => {
        const start = performance.now();
        const out = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (out instanceof Promise) {
          return out.finally(() => add(key, performance.now() - start));
        }
        add(key, performance.now() - start);
        return out;
      };
    },
  });
  return { store: proxy, byMethod };
}
