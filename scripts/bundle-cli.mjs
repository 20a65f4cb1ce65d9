// Bundles the built CLI (dist/src/cli/main.js, as tsc wrote it) into dist/src/cli/bin/: one
// module per command's code path instead of hundreds of files, so a cold `docket` process
// resolves, reads and compiles far fewer (docs/adr/0016-cold-start.md has the figures). Every
// dynamic import() stays a separate chunk, loaded only when reached. The CLI's bundle holds
// docket's own code only: every package stays external and loads from node_modules, where npm
// installed it for the library anyway (docs/adr/0027-packaging.md). The policy check's bundle
// is the one exception, for its code cache (below). The bundle stays under dist/src/cli/, which
// self-protection names as docket's CLI. Then main.js becomes a launcher of the bundle.
import { chmodSync, copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { build } from "esbuild";

const cli = "dist/src/cli";

// zod's classic build re-exports all its locales (about half its code) as `z.locales`; docket's
// CLI speaks English only and never reads the others, so the bundle keeps `en` alone.
const englishZodOnly = {
  name: "english-zod-only",
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";\n',
      loader: "js",
    }));
  },
};
// CEL (for `when:` rules) is required where the first condition is compiled, not imported:
// esbuild then evaluates its module body on that first call, so a policy without `when:` never
// runs it; compiling one stays synchronous (src/policy/load-cel.ts).
const celOnFirstUse = {
  name: "cel-on-first-use",
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/]src[\\/]policy[\\/]load-cel\.js$/ }, (args) => ({
      contents: 'export function loadCel() {\n  return require("@marcbachmann/cel-js");\n}\n',
      loader: "js",
      resolveDir: dirname(args.path),
    }));
  },
};
// `docket policy check TOOL ARGS [--json]` (main.ts hands it to policy-check-main.js) is a bundle
// of its own: its code in a few module files rather than the fifty shared chunks of the CLI's
// split bundle, which Node resolves, reads and links one by one (about 15 ms of a cold check,
// docs/adr/0021-cold-start-floor.md). The CLI's bundle leaves that import to it.
const policyCheckApart = {
  name: "policy-check-apart",
  setup(build) {
    build.onResolve({ filter: /^\.\/policy-check-main\.js$/ }, () => ({
      path: "./policy-check-main.js",
      external: true,
    }));
  },
};
// A policy check runs no tool: its bundle leaves the handlers out (about 1 MB), and an import of
// one, were it ever reached, fails (a failed call), never runs anything.
const noHandlers = {
  name: "no-handlers",
  setup(build) {
    build.onResolve({ filter: /\.handler\.js$/ }, () => ({
      path: "./a-policy-check-runs-no-tool-handler.js",
      external: true,
    }));
  },
};
// import-package.ts loads packages with import(name); the policy check's bundle is CommonJS run
// through vm.Script (no dynamic import there), and the packages it reaches (web-tree-sitter,
// better-sqlite3) have CommonJS builds, so there it is require(name).
const requireInCheck = {
  name: "require-in-check",
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/]src[\\/]shared[\\/]import-package\.js$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      const replaced = text.replace(
        "return import(name);",
        "return Promise.resolve().then(() => require(name));",
      );
      if (replaced === text)
        throw new Error(`${args.path}: no \`return import(name);\` to replace`);
      return { contents: replaced, loader: "js", resolveDir: dirname(args.path) };
    });
  },
};
const manifest = JSON.parse(readFileSync("package.json", "utf8"));
// Small pure-JavaScript packages that a cold `docket run` loads before its first answer: inlined,
// because Node resolving, reading and compiling each of their files costs a one-turn run about
// 90 ms of CPU (docs/adr/0027-packaging.md). Everything else stays in node_modules.
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
const shared = {
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outdir: `${cli}/bin`,
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
  // Not tsconfig.json, whose `paths` send "docket" to src/ for development: the shipped example
  // imports "docket", which must be the very modules the bundle already holds from dist/.
  tsconfig: "tsconfig.build.json",
};
rmSync(`${cli}/bin`, { recursive: true, force: true });
await build({
  ...shared,
  entryPoints: { main: `${cli}/main.js` },
  chunkNames: "chunks/[name]-[hash]",
  // Every package docket depends on, or may load as an optional peer; not "docket" itself, which
  // the shipped example imports and which must be the bundle's own modules (one copy).
  external: [...installed],
  plugins: [englishZodOnly, celOnFirstUse, policyCheckApart],
});
// The check's code is one CommonJS file, which policy-check-loader.ts (bin/policy-check-main.js,
// the module main.js imports) compiles with vm.Script and V8's code cache in docket's own cache
// folder: a cold check then deserialises its compiled code instead of compiling about 1 MB of
// JavaScript (docs/adr/0022-code-cache.md). import.meta.url is the file's own URL, as in an ES
// module; tree-sitter loads through its CommonJS build.
await build({
  ...shared,
  splitting: false,
  format: "cjs",
  outdir: undefined,
  entryPoints: [`${cli}/policy-check-main.js`],
  charset: "ascii",
  outfile: `${cli}/bin/policy-check.cjs`,
  define: { "import.meta.url": "__docketImportMetaUrl" },
  banner: {
    js: 'var __docketImportMetaUrl = require("node:url").pathToFileURL(__filename).href;',
  },
  plugins: [englishZodOnly, celOnFirstUse, noHandlers, requireInCheck],
});
// ASCII only, so the loader reads it as Latin-1 into a one-byte string (about 1.5 ms less than
// decoding UTF-8 into a two-byte one). esbuild's ascii charset escapes strings, templates and
// names; what it leaves (comments, a regular expression's literal characters) takes a \uXXXX
// escape, which means the same character in a regular expression and nothing in a comment.
const checkBundle = `${cli}/bin/policy-check.cjs`;
writeFileSync(
  checkBundle,
  readFileSync(checkBundle, "utf8").replace(
    /[^\0-\x7f]/g,
    (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`,
  ),
);
await build({
  ...shared,
  splitting: false,
  entryPoints: { "policy-check-main": `${cli}/policy-check-loader.js` },
});
// The bash grammar docket loads (1.3 MB), shipped as `docket/tree-sitter-bash.wasm` instead of
// depending on tree-sitter-bash (about 20 MB of native sources and prebuilt binaries), with its
// licence beside it.
const grammarPackage = dirname(
  createRequire(import.meta.url).resolve("tree-sitter-bash/package.json"),
);
copyFileSync(join(grammarPackage, "tree-sitter-bash.wasm"), "dist/tree-sitter-bash.wasm");
copyFileSync(join(grammarPackage, "LICENSE"), "dist/tree-sitter-bash.LICENSE");
// The launcher. The bundle's main sets V8's --liftoff-only itself, just before tree-sitter's
// first WebAssembly compile (docs/adr/0019-cold-policy-check.md, 0021-cold-start-floor.md).
// No compile cache for the rest of the CLI (ADR 0019 says why Node's was withdrawn; ADR 0022
// why the policy check's code cache is argued safe).
const launcher = `#!/usr/bin/env node
await import("./bin/main.js");
`;
writeFileSync(`${cli}/main.js`, launcher);
chmodSync(`${cli}/main.js`, 0o755);
