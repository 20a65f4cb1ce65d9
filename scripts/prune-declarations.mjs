// The package's declarations are those its one entry point reaches: dist/src/index.d.ts and
// every .d.ts it imports or re-exports, transitively. tsc writes one for every module (the CLI's,
// the console's, the hook hosts'...), which no `import "docket"` can name: about half the
// declarations, shipped for nothing (issue 34: the tarball at most 1.5 MB).
//   node scripts/prune-declarations.mjs [dist/src]
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const root = resolve(process.argv[2] ?? "dist/src");
const entry = join(root, "index.d.ts");
if (!existsSync(entry)) {
  console.error(`prune-declarations: no ${entry}; build the declarations first`);
  process.exit(1);
}

// `from "./x.js"`, `import("./x.js")`, `import "./x.js"`: relative specifiers only (packages stay).
const SPECIFIER = /(?:from\s+|import\s*\(\s*|import\s+)["'](\.{1,2}\/[^"']+)["']/g;

const reached = new Set();
const pending = [entry];
while (pending.length > 0) {
  const file = pending.pop();
  if (reached.has(file)) continue;
  reached.add(file);
  for (const [, specifier] of readFileSync(file, "utf8").matchAll(SPECIFIER)) {
    const target = resolve(dirname(file), specifier.replace(/\.js$/, ".d.ts"));
    const candidates = [target, target.endsWith(".d.ts") ? target : `${target}.d.ts`];
    const found = candidates.find((candidate) => existsSync(candidate));
    if (found) pending.push(found);
  }
}

function declarations(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return declarations(path);
    return entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

let removed = 0;
for (const file of declarations(root)) {
  if (reached.has(file)) continue;
  rmSync(file);
  removed += 1;
}
// On stderr: `npm pack --json` prints its report on stdout.
process.stderr.write(
  `prune-declarations: kept ${reached.size}, removed ${removed} unreachable from index.d.ts\n`,
);
