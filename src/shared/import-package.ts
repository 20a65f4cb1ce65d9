import { createRequire } from "node:module";
import { DocketError, type DocketErrorCode } from "../errors/docket-error.js";

/**
 * Import an installed package by name at run time. The name is a variable on purpose: a
 * bundler (esbuild, Vite, webpack) leaves the import as it is instead of inlining the package,
 * so a native driver, a package that finds files beside itself (web-tree-sitter's .wasm) or an
 * optional peer still loads from node_modules, and an app that bundles docket into one file
 * does not need the optional ones installed to start.
 *
 * @example
 * ```ts
 * const { Parser } = await importPackage<typeof import("web-tree-sitter")>("web-tree-sitter");
 * ```
 */
export function importPackage<T>(name: string): Promise<T> {
  return import(name) as Promise<T>;
}

/**
 * `require` a CommonJS package by name (see `importPackage` for why the name is a variable),
 * synchronously, resolved from docket's own location.
 *
 * @example
 * ```ts
 * const { Pool } = requirePackage<typeof import("pg")>("pg");
 * ```
 */
export function requirePackage<T>(name: string): T {
  return createRequire(import.meta.url)(name) as T;
}

/** What needs an optional package, for the error that names it. */
export interface OptionalPackageNeed {
  /** Completes "… needs the "pkg" package": e.g. `"Anthropic models (anthropic:…)"`. */
  readonly neededFor: string;
  /** The DocketError code a missing package is thrown with; default `package_missing`. */
  readonly code?: DocketErrorCode;
}

/**
 * Import an optional peer dependency (a model provider, the OpenTelemetry SDK, PostgreSQL's
 * driver) when it is first configured. When it is not installed: a `DocketError` whose one-line
 * message names the package to add, instead of a module-resolution trace. A package that is
 * installed but fails to load (a missing dependency of its own) is rethrown as it is.
 *
 * @example
 * ```ts
 * const { createAnthropic } = await importOptional<typeof import("@ai-sdk/anthropic")>(
 *   "@ai-sdk/anthropic",
 *   { neededFor: "Anthropic models (anthropic:…)" },
 * );
 * ```
 */
export async function importOptional<T>(
  name: string,
  { neededFor, code }: OptionalPackageNeed,
): Promise<T> {
  try {
    return await importPackage<T>(name);
  } catch (error) {
    if (isMissing(error, name)) {
      const message = `${neededFor} needs the "${name}" package, which is not installed: run \`npm i -E ${name}\` in your project.`;
      throw code === undefined
        ? new DocketError("package_missing", message, { cause: error })
        : new DocketError(code, message, { cause: error });
    }
    throw error;
  }
}

/** Whether `error` says that package `name` itself (not one of its own imports) is absent. */
export function isMissing(error: unknown, name: string): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  const message = String((error as Error).message);
  return message.includes(`'${name}'`) || message.includes(`"${name}"`);
}
