/**
 * Why this Node cannot run docket, or undefined when it can: node:sqlite first (Node 23 has it
 * from 23.4), and the 22 line from 22.16. The built launcher asks before anything else runs.
 *
 * @example
 * ```ts
 * unsupportedNodeReason("20.20.2"); // "needs Node 22.16 or later (24 or 26); this is Node 20.20.2"
 * unsupportedNodeReason("24.21.0"); // undefined
 * ```
 */
export function unsupportedNodeReason(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  if (major < 22 || (major === 22 && minor < 16) || (major === 23 && minor < 4)) {
    return `needs Node 22.16 or later (24 or 26); this is Node ${version}`;
  }
  return undefined;
}
