// Bundles docket's sources into dist/ once, for both of its entry points: the library
// (dist/src/index.js, what `import "docket"` loads) and the CLI (dist/src/cli/bin/main.js, behind
// the launcher dist/src/cli/main.js). One esbuild build with code splitting: each module's code is
// in exactly one file, dist/src/chunks/ holds what both entries share, and every dynamic import()
// stays a chunk of its own, loaded only when reached (docs/adr/0057-one-build-for-library-and-cli.md).
// A cold `docket` process then resolves, reads and compiles a few dozen files, not hundreds
// (docs/adr/0016-cold-start.md). Packages stay external and load from node_modules, except the
// few small ones a cold run needs first (below, docs/adr/0027-packaging.md). The CLI's two
// CommonJS bundles are the files that repeat code, for V8's code cache (below, ADRs 0022, 0087).
// tsc writes only the declarations (package.json's build script).
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { build } from "esbuild";
import {
  celOnFirstUse,
  cliApart,
  commanderSpawnOnUse,
  docketItself,
  englishZodOnly,
  importThroughLoader,
  launcherApart,
  noHandlers,
  policyCheckApart,
  requireInCheck,
} from "./bundle-plugins.mjs";

const cli = "dist/src/cli";

const manifest = JSON.parse(readFileSync("package.json", "utf8"));
// Small pure-JavaScript packages that a cold `docket run` loads before its first answer: inlined,
// because Node resolving, reading and compiling each of their files costs a one-turn run about
// 90 ms of CPU (docs/adr/0027-packaging.md). The library shares these chunks, so it holds its own
// private copy too: it meets a user's zod, AI SDK and OpenTelemetry only through Standard Schema,
// Symbol.for markers and OpenTelemetry's global registry, never by identity (ADR 0057).
// Everything else stays in node_modules.
const inlined = new Set([
  "zod",
  "yaml",
  "commander",
  "@ai-sdk/provider",
  "@ai-sdk/provider-utils",
  "@standard-schema/spec",
  "@marcbachmann/cel-js",
  "picomatch",
  "@opentelemetry/api",
]);
const installed = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).filter(
  (name) => !inlined.has(name),
);
/** Every .js and .cjs file under `dir`, removed. */
function removeJavaScript(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.c?js$/.test(entry.name)) rmSync(join(entry.parentPath, entry.name));
  }
}
// DOCKET_BUILD (src/hook/daemon-identity.ts): a stand-in of the digest's length while building,
// then, in every file, the digest of all the built code, so that a hook client and the daemon it
// asks name the same build only when they are one installation (docs/adr/0107).
const BUILD_STAND_IN = "@@docket-build@@";
const shared = {
  bundle: true,
  define: { __DOCKET_BUILD__: JSON.stringify(BUILD_STAND_IN) },
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  external: ["pg", "@electric-sql/pglite", "web-tree-sitter", "tree-sitter-bash"],
  // CommonJS packages inside an ES module bundle still call require().
  banner: {
    js: "import { createRequire as __docketCreateRequire } from 'node:module'; const require = __docketCreateRequire(import.meta.url);",
  },
  logLevel: "warning",
  // Whitespace and syntax only: the tarball stays small (docs/adr/0027-packaging.md), and the
  // names in a crash log's stack stay docket's own.
  minifyWhitespace: true,
  minifySyntax: true,
  // Not tsconfig.json, whose `paths` are for development: "docket" is docketItself's to resolve.
  tsconfig: "tsconfig.build.json",
};
// tsc writes only declarations into dist/: any JavaScript there is a previous build's.
for (const dir of [`${cli}/bin`, "dist/src/chunks"]) rmSync(dir, { recursive: true, force: true });
removeJavaScript("dist");
await build({
  ...shared,
  outdir: "dist/src",
  entryPoints: {
    index: "src/index.ts",
    "cli/bin/main": "src/cli/main.ts",
    // What main.js imports for `policy check`: it loads the check's own bundle (below).
    "cli/bin/policy-check-main": "src/cli/policy-check-loader.ts",
    // What main.js imports for every other command and a hook call in process: it loads the
    // CLI's bundle (below).
    "cli/bin/cli-main": "src/cli/cli-loader.ts",
  },
  chunkNames: "chunks/[name]-[hash]",
  // Every package docket depends on, or may load as an optional peer.
  external: [...installed],
  plugins: [docketItself, englishZodOnly, celOnFirstUse, policyCheckApart, cliApart],
});
// Two CommonJS files, each compiled with vm.Script and V8's code cache in docket's own cache
// folder by its loader (the module main.js imports): a cold command then deserialises its
// compiled code instead of Node resolving, reading, linking and compiling dozens of ES module
// files. import.meta.url is the file's own URL, as in an ES module. Each repeats what the shared
// modules hold, on purpose: V8's code cache covers one script.
// - bin/policy-check.cjs, the plain `policy check` (policy-check-loader.ts): the check's code
//   only, about 0.8 MB, no handler; tree-sitter through its CommonJS build (ADR 0022).
// - bin/cli.cjs, every other command and a hook call in process (cli-loader.ts), about 1.8 MB:
//   apart from the check's, whose every cold start would read, hash and deserialise twice as
//   much (docs/adr/0087-the-cli-is-one-cached-script.md).
const cjs = {
  ...shared,
  splitting: false,
  format: "cjs",
  outdir: undefined,
  charset: "ascii",
  define: { ...shared.define, "import.meta.url": "__docketImportMetaUrl" },
  banner: {
    js: 'var __docketImportMetaUrl = require("node:url").pathToFileURL(__filename).href;',
  },
};
const checkBundle = `${cli}/bin/policy-check.cjs`;
const cliBundle = `${cli}/bin/cli.cjs`;
await build({
  ...cjs,
  entryPoints: ["src/cli/policy-check-main.ts"],
  outfile: checkBundle,
  plugins: [englishZodOnly, celOnFirstUse, noHandlers, requireInCheck],
});
await build({
  ...cjs,
  entryPoints: ["src/cli/cli-bundle.ts"],
  outfile: cliBundle,
  external: [...shared.external, ...installed],
  plugins: [docketItself, englishZodOnly, celOnFirstUse, importThroughLoader, commanderSpawnOnUse],
});
// ASCII only, so a loader reads it as Latin-1 into a one-byte string (about 1.5 ms less than
// decoding UTF-8 into a two-byte one). esbuild's ascii charset escapes strings, templates and
// names; what it leaves (comments, a regular expression's literal characters) takes a \uXXXX
// escape, which means the same character in a regular expression and nothing in a comment.
for (const bundle of [checkBundle, cliBundle]) {
  writeFileSync(
    bundle,
    readFileSync(bundle, "utf8").replace(
      /[^\0-\x7f]/g,
      (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`,
    ),
  );
}
// The bash grammar docket loads (1.3 MB), shipped as `docket/tree-sitter-bash.wasm` instead of
// depending on tree-sitter-bash (about 20 MB of native sources and prebuilt binaries), with its
// licence beside it.
const grammarPackage = dirname(
  createRequire(import.meta.url).resolve("tree-sitter-bash/package.json"),
);
copyFileSync(join(grammarPackage, "tree-sitter-bash.wasm"), "dist/tree-sitter-bash.wasm");
copyFileSync(join(grammarPackage, "LICENSE"), "dist/tree-sitter-bash.LICENSE");
// The launcher, dist/src/cli/main.js (src/cli/launcher.ts): the first module of every `docket`
// process. It checks the Node version before anything can fail on what an older one lacks (a
// hook call still answers in its host's way), answers a hook call registered with the daemon by
// the thin client bundled inside it, and sends everything else to bin/main.js. What the client
// needs only to start a daemon or to word a failure is split off into bin/hook-client/, loaded
// then: a call the daemon answers loads main.js alone, about 6 KB
// (docs/adr/0068-hook-client-bundle.md, 0098-the-hook-client-in-the-launcher.md). The bundle's
// main sets V8's --liftoff-only itself, just before tree-sitter's first WebAssembly compile
// (docs/adr/0019-cold-policy-check.md, 0021-cold-start-floor.md, 0093).
await build({
  ...shared,
  // The hashbang is the entry's own first line: a banner would head every chunk too.
  banner: undefined,
  outdir: cli,
  entryPoints: { main: "src/cli/launcher.ts" },
  chunkNames: "bin/hook-client/[name]-[hash]",
  plugins: [launcherApart],
});
// The one file a hook call loads: if main.ts ever came into it (launcherApart missed its import),
// every hook call would compile the whole CLI.
const launcherText = readFileSync(`${cli}/main.js`, "utf8");
if (!launcherText.startsWith("#!/usr/bin/env node\n") || launcherText.length > 16_384) {
  throw new Error(`the launcher ${cli}/main.js is not the small file it must be`);
}
if (!launcherText.includes('import("./bin/main.js")')) {
  throw new Error(`the launcher ${cli}/main.js does not hand off to bin/main.js`);
}
chmodSync(`${cli}/main.js`, 0o755);
// The build's digest: every JavaScript file built, in the order of their paths, with the
// stand-in still in it, and the bash grammar the shell analyser loads; then written over the
// stand-in, which has its length.
const built = readdirSync("dist", { withFileTypes: true, recursive: true })
  .filter((entry) => entry.isFile() && /\.c?js$/.test(entry.name))
  .map((entry) => join(entry.parentPath, entry.name))
  .sort();
const digest = createHash("sha256");
for (const file of [...built, "dist/tree-sitter-bash.wasm"]) {
  digest.update(`${file}\0`).update(readFileSync(file));
}
const buildId = digest.digest("hex").slice(0, BUILD_STAND_IN.length);
for (const file of built) {
  const text = readFileSync(file, "latin1");
  if (!text.includes(BUILD_STAND_IN)) continue;
  writeFileSync(file, text.replaceAll(BUILD_STAND_IN, buildId), "latin1");
}
// The hook client and the daemon: each must name the build, or neither would know the other.
for (const file of [`${cli}/main.js`, cliBundle]) {
  if (!readFileSync(file, "latin1").includes(buildId)) {
    throw new Error(`${file} does not name its build`);
  }
}
