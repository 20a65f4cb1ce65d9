import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { initialConfig } from "./init-command.js";
import { detectProjectChecks } from "./project-checks.js";

const dirs: string[] = [];
async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "docket-checks-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("detectProjectChecks", () => {
  it("takes check-like package.json scripts and the checking commands of known tools", async () => {
    const dir = await project({
      "package.json": JSON.stringify({
        scripts: { test: "vitest", "test:e2e": "x", build: "tsc", start: "node .", deploy: "x" },
        devDependencies: { typescript: "5", vitest: "4" },
      }),
    });
    expect(detectProjectChecks(dir)).toEqual([
      "npm run build *",
      "npm test *",
      "npm run test:e2e *",
      "npx tsc --noEmit *",
      "npx vitest run *",
    ]);
  });

  it("uses the package manager the lockfile names", async () => {
    const dir = await project({
      "package.json": JSON.stringify({ scripts: { test: "x", lint: "y" } }),
      "pnpm-lock.yaml": "",
    });
    expect(detectProjectChecks(dir)).toEqual(["pnpm run lint *", "pnpm test *"]);
  });

  it("finds Cargo, Go, pytest and a Makefile's check targets", async () => {
    const dir = await project({
      "Cargo.toml": "[package]\n",
      "go.mod": "module x\n",
      "pyproject.toml": "[tool.pytest.ini_options]\n",
      Makefile: "build:\n\tcc x.c\ntest: build\n\t./t\ninstall:\n\tcp x /usr/bin\n",
    });
    const checks = detectProjectChecks(dir);
    expect(checks).toEqual(
      expect.arrayContaining(["cargo test *", "go vet *", "pytest *", "make build", "make test"]),
    );
    expect(checks).not.toContain("make install");
  });

  it("finds nothing in an empty folder or a package.json that does not parse", async () => {
    expect(detectProjectChecks(await project({}))).toEqual([]);
    expect(detectProjectChecks(await project({ "package.json": "{ not json" }))).toEqual([]);
  });
});

describe("initialConfig", () => {
  it("writes the checks as an allow rule for run_command, and a commented example without any", () => {
    const rules = (config: string) =>
      (parse(config) as { policy: { rules: { id: string; command?: string[] }[] } }).policy.rules;
    const found = rules(initialConfig({ checks: ["npm test *", "npx tsc --noEmit *"] }));
    expect(found.find((rule) => rule.id === "project-checks")).toMatchObject({
      decision: "allow",
      tool: "run_command",
      command: ["npm test *", "npx tsc --noEmit *"],
    });
    const none = initialConfig();
    expect(rules(none).some((rule) => rule.id === "project-checks")).toBe(false);
    expect(none).toContain("# - id: project-checks");
  });
});
