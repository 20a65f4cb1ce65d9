import { readFileSync, statSync } from "node:fs";
import * as path from "node:path";

const GITLINK = 0o160000;
const cache = new Map<string, { key: string; links: string[] }>();

// v4 paths are stored as "drop N bytes of the previous path, then append": N is a varint.
function readVarint(buffer: Buffer, at: number): [number, number] {
  let byte = buffer[at++] ?? 0;
  let value = byte & 0x7f;
  while (byte & 0x80) {
    byte = buffer[at++] ?? 0;
    value = ((value + 1) << 7) | (byte & 0x7f);
  }
  return [value, at];
}

function parse(buffer: Buffer, hashSize: number): string[] {
  if (buffer.length < 12 || buffer.toString("latin1", 0, 4) !== "DIRC") return [];
  const version = buffer.readUInt32BE(4);
  if (version < 2 || version > 4) return [];
  const count = buffer.readUInt32BE(8);
  const links: string[] = [];
  let at = 12;
  let previous = "";
  for (let i = 0; i < count && at < buffer.length; i++) {
    const start = at;
    const mode = buffer.readUInt32BE(at + 24);
    at += 40 + hashSize;
    const flags = buffer.readUInt16BE(at);
    at += 2;
    if (version >= 3 && flags & 0x4000) at += 2;
    let name: string;
    if (version === 4) {
      const [drop, next] = readVarint(buffer, at);
      const end = buffer.indexOf(0, next);
      if (end < 0) break;
      name = previous.slice(0, previous.length - drop) + buffer.toString("utf8", next, end);
      at = end + 1;
    } else {
      const end = buffer.indexOf(0, at);
      if (end < 0) break;
      name = buffer.toString("utf8", at, end);
      // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
      at = start + Math.ceil((end - start + 1) / 8) * 8;
    }
    previous = name;
    if ((mode & 0o170000) === GITLINK) links.push(name);
  }
  return links;
}

/**
 * The paths of the submodules (gitlinks) a repository's index holds, `.gitmodules` or not: git
 * runs `git status` inside each one that has a `.git`, so a repository planted there (below
 * `node_modules`, which the walk skips) would run its configuration at the user's next status.
 * Read from the binary index (versions 2 to 4, SHA-1 or SHA-256), cached while the file is
 * unchanged; an unreadable or unknown index answers none.
 *
 * @example
 * ```ts
 * indexGitlinks("/ws/.git"); // ["vendor/lib", "node_modules/x"]
 * ```
 */
export function indexGitlinks(gitDir: string, { sha256 = false } = {}): string[] {
  const file = path.join(gitDir, "index");
  let key: string;
  try {
    const stat = statSync(file);
    key = `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${sha256}`;
  } catch {
    return [];
  }
  const cached = cache.get(file);
  if (cached?.key === key) return cached.links;
  let links: string[];
  try {
    links = parse(readFileSync(file), sha256 ? 32 : 20);
  } catch {
    links = [];
  }
  if (cache.size > 100) cache.clear();
  cache.set(file, { key, links });
  return links;
}
