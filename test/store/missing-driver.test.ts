import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const openStore = fileURLToPath(new URL("../../src/store/open-store.ts", import.meta.url));
const tsx = import.meta.resolve("tsx");

// A resolve hook that makes "pg" missing, as in a project that did not install it.
const hide = `data:text/javascript,${encodeURIComponent(`
import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(\`
export async function resolve(specifier, context, next) {
  if (specifier === "pg") {
    const error = new Error("Cannot find package 'pg' imported from " + context.parentURL);
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}\`));
`)}`;

describe("a store whose driver is not installed", () => {
  it("stops with the package to install, not a module trace", async () => {
    const script = `
      const { openStore } = await import(${JSON.stringify(openStore)});
      try { await openStore("postgres://nobody@127.0.0.1:1/none"); console.log("opened"); }
      catch (error) { console.log(error.code + ": " + error.message); }
    `;
    const { stdout } = await run(
      process.execPath,
      ["--import", tsx, "--import", hide, "--input-type=module", "-e", script],
      { timeout: 60_000 },
    );
    expect(stdout.trim()).toBe(
      'store_open_failed: A postgres: store needs the "pg" package, which is not installed: run `npm i -E pg` in your project.',
    );
  });
});
