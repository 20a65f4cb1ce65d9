// The esbuild plugins of scripts/bundle.mjs: how docket's bundles differ from its sources.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

// The example's `import ... from "docket"` (the demo loads it) is the library entry itself, so
// the demo's tools and the CLI share one copy of docket, as in an app that imports the package.
export const docketItself = {
  name: "docket-itself",
  setup(build) {
    build.onResolve({ filter: /^docket$/ }, () => ({ path: resolve("src/index.ts") }));
  },
};

// zod's classic build re-exports all its locales (about half its code) as `z.locales`; docket's
// CLI speaks English only and never reads the others, so the bundle keeps `en` alone.
export const englishZodOnly = {
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
export const celOnFirstUse = {
  name: "cel-on-first-use",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]policy[\\/]load-cel\.ts$/ }, (args) => ({
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
export const policyCheckApart = {
  name: "policy-check-apart",
  setup(build) {
    build.onResolve({ filter: /^\.\/policy-check-main\.js$/ }, () => ({
      path: "./policy-check-main.js",
      external: true,
    }));
  },
};
// Every command but the plain check, and a hook call in process, run from the CLI's CommonJS
// bundle (bin/cli.cjs), which cli-loader.ts (bin/cli-main.js) compiles through V8's code cache:
// main.ts's import of cli-bundle.ts is the loader's in the built CLI
// (docs/adr/0087-the-cli-is-one-cached-script.md).
export const cliApart = {
  name: "cli-apart",
  setup(build) {
    build.onResolve({ filter: /^\.\/cli-bundle\.js$/ }, () => ({
      path: "./cli-main.js",
      external: true,
    }));
  },
};
// The launcher (src/cli/launcher.ts, built into dist/src/cli/main.js) hands every call that is
// not a daemon hook call to main.ts, which is bin/main.js in the built CLI: left as an import of
// that file, never bundled into the launcher (docs/adr/0098-the-hook-client-in-the-launcher.md).
export const launcherApart = {
  name: "launcher-apart",
  setup(build) {
    build.onResolve({ filter: /^\.\/main\.js$/ }, (args) =>
      args.importer.endsWith("launcher.ts") ? { path: "./bin/main.js", external: true } : undefined,
    );
  },
};
// A policy check runs no tool: its bundle leaves the handlers out (about 1 MB), and an import of
// one, were it ever reached, fails (a failed call), never runs anything.
export const noHandlers = {
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
export const requireInCheck = {
  name: "require-in-check",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]shared[\\/]import-package\.ts$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      const replaced = text.replace(
        "return import(name)",
        "return Promise.resolve().then(() => require(name))",
      );
      if (replaced === text) throw new Error(`${args.path}: no \`return import(name)\` to replace`);
      return { contents: replaced, loader: "ts", resolveDir: dirname(args.path) };
    });
  },
};
// import-package.ts loads packages with import(name); the CLI's bundle is CommonJS run through
// vm.Script, which has no import() of its own without an experimental flag, so there it is the
// loader's, handed in as __docketImport (load-cached-script.ts): the same ES module import,
// resolved from the bundle's folder.
export const importThroughLoader = {
  name: "import-through-loader",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]shared[\\/]import-package\.ts$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      const replaced = text.replace("return import(name)", "return __docketImport(name)");
      if (replaced === text) throw new Error(`${args.path}: no \`return import(name)\` to replace`);
      return { contents: replaced, loader: "ts", resolveDir: dirname(args.path) };
    });
  },
};
// commander requires child_process when its module loads, for executable subcommands, which
// docket does not have: loading it costs about 3 ms of every cold command. In the CLI's bundle it
// is required where commander would spawn one, and never otherwise.
export const commanderSpawnOnUse = {
  name: "commander-spawn-on-use",
  setup(build) {
    build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      const eager = "const childProcess = require('node:child_process');";
      const replaced = text.replace(
        eager,
        "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
      );
      if (replaced === text) throw new Error(`${args.path}: no \`${eager}\` to replace`);
      return { contents: replaced, loader: "js", resolveDir: dirname(args.path) };
    });
  },
};
