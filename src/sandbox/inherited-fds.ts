import { readdirSync, readFileSync } from "node:fs";

const O_CLOEXEC = 0o2000000;

/**
 * The descriptors above stderr that a child of this process would inherit: open without
 * close-on-exec, which docket never opens itself (Node and its addons set it), so these came
 * from docket's parent. Read from /proc at each launch; where /proc cannot be read, every
 * descriptor is assumed to pass (`undefined`), so the caller closes them all.
 *
 * @example
 * ```ts
 * inheritedFds(); // [] normally; [3] under `exec 3>log; docket run …`
 * ```
 */
export function inheritedFds(): number[] | undefined {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return undefined;
  }
  const found: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!(fd > 2)) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, "latin1");
    } catch {
      // Closed since the listing (the listing's own descriptor among them).
      continue;
    }
    const flags = /^flags:\s*([0-7]+)/m.exec(info)?.[1];
    if (flags === undefined || (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) found.push(fd);
  }
  return found;
}
