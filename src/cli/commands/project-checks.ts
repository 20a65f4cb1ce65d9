import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseJson } from "../../shared/parse-json.js";

/** package.json scripts that test, build, type-check or lint: what an agent runs all day. */
const CHECK_SCRIPT = /^(test|build|check|lint|typecheck|type-check|types|tsc|compile)(:[\w:-]+)?$/;

/** Tools a project's dependencies bring, with the commands that only check. */
const CHECK_TOOLS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["typescript", ["npx tsc --noEmit *"]],
  ["vitest", ["npx vitest run *"]],
  ["jest", ["npx jest *"]],
  ["mocha", ["npx mocha *"]],
  ["eslint", ["npx eslint *"]],
  ["@biomejs/biome", ["npx biome check *", "npx biome lint *"]],
  ["prettier", ["npx prettier --check *"]],
];

/** Runners found beside package.json: a marker file and the commands that test or build. */
const RUNNERS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["Cargo.toml", ["cargo test *", "cargo build *", "cargo check *", "cargo clippy *"]],
  ["go.mod", ["go test *", "go build *", "go vet *"]],
  ["pytest.ini", ["pytest *", "python -m pytest *", "python3 -m pytest *"]],
  ["conftest.py", ["pytest *", "python -m pytest *", "python3 -m pytest *"]],
];

const MAKE_TARGET = /^(test|check|build|lint):/gm;

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = parseJson(readFileSync(file, "utf8"));
    return typeof value === "object" && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

function packageManager(dir: string): "npm" | "pnpm" | "yarn" {
  if (existsSync(join(dir, "pnpm-lock.yaml"))) return "pnpm";
  if (existsSync(join(dir, "yarn.lock"))) return "yarn";
  return "npm";
}

function nodeChecks(dir: string): string[] {
  const manifest = readJson(join(dir, "package.json"));
  if (manifest === undefined) return [];
  const manager = packageManager(dir);
  const scripts = manifest.scripts;
  const checks: string[] = [];
  if (typeof scripts === "object" && scripts !== null) {
    for (const name of Object.keys(scripts)
      .filter((key) => CHECK_SCRIPT.test(key))
      .sort()) {
      checks.push(name === "test" ? `${manager} test *` : `${manager} run ${name} *`);
    }
  }
  const dependencies = new Set(
    ["dependencies", "devDependencies"].flatMap((field) => {
      const listed = manifest[field];
      return typeof listed === "object" && listed !== null ? Object.keys(listed) : [];
    }),
  );
  for (const [tool, commands] of CHECK_TOOLS) if (dependencies.has(tool)) checks.push(...commands);
  return checks;
}

/**
 * The project's own test, build, type-check and lint commands, as `command` patterns for the
 * allow rule `docket init` writes: package.json scripts named like checks (`test`, `build`,
 * `typecheck`, `lint`, `test:unit` …) run with the project's package manager, the checking
 * commands of the tools its dependencies bring (`npx tsc --noEmit *`, `npx vitest run *`), and
 * the runners found beside it (Cargo, Go, pytest, a Makefile's test/check/build/lint targets).
 * Nothing found: an empty list. Only what sits in `dir` is read; nothing runs.
 *
 * @example
 * ```ts
 * detectProjectChecks("/home/me/app"); // ["npm run build *", "npm test *", "npx tsc --noEmit *"]
 * ```
 */
export function detectProjectChecks(dir: string): string[] {
  const checks = nodeChecks(dir);
  for (const [marker, commands] of RUNNERS)
    if (existsSync(join(dir, marker))) checks.push(...commands);
  const pyproject = readText(join(dir, "pyproject.toml"));
  if (/\bpytest\b/.test(pyproject))
    checks.push("pytest *", "python -m pytest *", "python3 -m pytest *");
  const makefile = readText(join(dir, "Makefile"));
  for (const [, target] of makefile.matchAll(MAKE_TARGET)) checks.push(`make ${target}`);
  return [...new Set(checks)];
}
