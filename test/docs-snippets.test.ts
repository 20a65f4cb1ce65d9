/**
 * Every fenced code block of README.md and docs/*.md (not docs/adr) is checked, so none can
 * drift. What a block is checked as comes from its info string: the language, then a marker.
 *
 *   ```yaml                 a whole docket.yaml: loaded by the real loader, must load
 *   ```yaml bad             a docket.yaml that must be refused (a deliberate bad example)
 *   ```yaml rules           a list of policy rules: loaded as docket.yaml's `policy.rules`
 *   ```yaml file=PATH       the text of PATH, a file of this repository (tests use it)
 *   ```ts                   typechecked as a module against the package (`docket` = src/)
 *   ```ts given=a,b         the same, with `a` and `b` declared (values set up elsewhere)
 *   ```sh / bash / console  every command run with bash in a fresh project after `docket init`
 *                           (console: the `$ ` lines); `npx docket` runs the packed CLI;
 *                           each must exit 0, or N when its comment says `exit N`
 *   ```sh exit=N            every command of the block must exit N (`policy check` of a deny)
 *   ```sh in-repo           run in this repository's folder instead (read-only commands)
 *   ```sh cwd=DIR           run in DIR of this repository (examples/policy)
 *   console blocks: each line a command prints under it must be in its output (a line is cut at
 *   `…`, and `...` stands for lines left out); `loose` for output that only illustrates
 *   ```LANG skip: REASON    not run, for the reason given (a real API key, a placeholder id,
 *                           a server that keeps running, a fragment): the reason is required
 *
 * Blocks of other languages (none, `text`, `json`, `jsonl`) are not checked. A failure names
 * the page and line of the block (and of the command or error inside it).
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/load-config.js";
import { readRuntimeConfig } from "../src/config/runtime-config.js";
import { createPolicyEngine } from "../src/policy/policy-engine.js";
import { type DocSnippet, docCommands, docSnippets, whereIs } from "./support/doc-snippets.js";
import { installedCli } from "./support/installed-cli.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));
const snippets = docSnippets(root);
const scratch = mkdtempSync(join(tmpdir(), "docket-docs-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The value of `key=value` in a snippet's marker. */
function option(snippet: DocSnippet, key: string): string | undefined {
  return snippet.marker
    .split(/\s+/)
    .find((word) => word.startsWith(`${key}=`))
    ?.slice(key.length + 1);
}

function skipReason(snippet: DocSnippet): string | undefined {
  const skip = /^skip(?::|\s|$)(.*)$/.exec(snippet.marker);
  return skip ? (skip[1] ?? "").trim() : undefined;
}

let dirs = 0;
function freshDir(): string {
  dirs += 1;
  const dir = join(scratch, `d${dirs}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe("every snippet of README.md and docs/ is checked", () => {
  it("finds the pages' blocks, and every skip gives its reason", () => {
    expect(snippets.length).toBeGreaterThan(30);
    const unexplained = snippets
      .filter((s) => skipReason(s) === "")
      .map((s) => `${whereIs(s)}: \`skip\` needs a reason (skip: REASON)`);
    expect(unexplained).toEqual([]);
  });
});

describe("yaml blocks load through the real config loader", () => {
  const yaml = snippets.filter((s) => (s.lang === "yaml" || s.lang === "yml") && !skipReason(s));
  for (const snippet of yaml) {
    it(`${whereIs(snippet)} ${snippet.marker}`.trim(), async () => {
      const file = option(snippet, "file");
      if (file) {
        const text = readFileSync(join(root, file), "utf8");
        expect(text.trimEnd(), `${whereIs(snippet)} is the text of ${file}`).toBe(
          snippet.text.trimEnd(),
        );
        return;
      }
      const dir = freshDir();
      const config = join(dir, "docket.yaml");
      const text =
        snippet.marker === "rules"
          ? `policy:\n  rules:\n${snippet.text.replace(/^/gm, "    ")}\n`
          : snippet.text;
      writeFileSync(config, text);
      const load = async () => {
        // A `${NAME}` without a default must be set for the file to load: as a user would.
        const names = [...text.matchAll(/\$\{(\w+)\}/g)].map((m) => m[1] as string);
        const env = Object.fromEntries(names.map((name) => [name, `example-${name}`]));
        const loaded = loadConfig(config, { home: dir, env });
        readRuntimeConfig(loaded);
        await createPolicyEngine({ layers: loaded.policy ? [loaded.policy] : [], workspace: dir });
      };
      if (snippet.marker === "bad") {
        await expect(load(), `${whereIs(snippet)} is marked bad`).rejects.toThrow();
      } else {
        await load().catch((error: unknown) => {
          throw new Error(`${whereIs(snippet)}: ${(error as Error).message}`);
        });
      }
    });
  }
});

describe("ts blocks typecheck against the package", () => {
  const ts = snippets.filter((s) => (s.lang === "ts" || s.lang === "typescript") && !skipReason(s));
  it(`${ts.length} blocks`, async () => {
    // Inside the checkout, so that `docket`, zod and node's types resolve as in the examples.
    const dir = mkdtempSync(join(root, ".docs-snippets-"));
    try {
      const names = ts.map((snippet, i) => {
        const name = `snippet-${i}.ts`;
        // `export {}` makes each a module (top-level await, no shared names); it and the given
        // names' declarations go after the snippet, so that its lines keep their numbers.
        const given = (option(snippet, "given") ?? "").split(",").filter(Boolean);
        const declared = given.map((value) => `declare const ${value}: any;`).join(" ");
        writeFileSync(join(dir, name), `${snippet.text}\nexport {}; ${declared}\n`);
        return name;
      });
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          extends: "../tsconfig.json",
          compilerOptions: { rootDir: "..", paths: { docket: ["../src/index.ts"] } },
          include: names,
        }),
      );
      const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
      const errors = await run(process.execPath, [tsc, "-p", dir, "--pretty", "false"], {
        cwd: dir,
      }).then(
        () => "",
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      const located = errors
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => {
          const at = /snippet-(\d+)\.ts\((\d+),\d+\): (.*)$/.exec(line);
          const snippet = at ? ts[Number(at[1])] : undefined;
          return snippet && at ? `${whereIs(snippet, Number(at[2]) - 1)}: ${at[3]}` : line;
        });
      expect(located, "type errors in the docs' ts blocks").toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});

describe("shell blocks of docket commands run", () => {
  const shells = snippets.filter(
    (s) => ["sh", "bash", "console", "shell"].includes(s.lang) && !skipReason(s),
  );
  const bin = join(scratch, "bin");
  const env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    HOME: join(scratch, "home"),
    NO_COLOR: "1",
    ANTHROPIC_API_KEY: "",
    OPENAI_API_KEY: "",
  };
  beforeAll(async () => {
    mkdirSync(bin, { recursive: true });
    mkdirSync(env.HOME, { recursive: true });
    // The CLI as users install it (test/support/installed-cli.ts).
    const main = await installedCli();
    writeFileSync(join(bin, "docket"), `#!/bin/sh\nexec "${process.execPath}" "${main}" "$@"\n`, {
      mode: 0o755,
    });
  }, 900_000);
  const sh = (line: string, cwd: string) =>
    run("bash", ["-c", line], { cwd, env, timeout: 60_000 }).then(
      ({ stdout, stderr }) => ({ code: 0, out: stdout + stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: typeof e.code === "number" ? e.code : -1,
        out: `${e.stdout ?? ""}${e.stderr ?? ""}`,
      }),
    );
  for (const snippet of shells) {
    it(`${whereIs(snippet)} ${snippet.marker}`.trim(), async () => {
      const lines = docCommands(snippet);
      const strays = lines
        .filter((c) => !/^docket(\s|$)/.test(c.line) && !/^cd\s/.test(c.line))
        .map((c) => `${whereIs(snippet, c.offset)}: not a docket command: ${c.line}`);
      expect(strays, "mark such blocks `skip: REASON`").toEqual([]);
      const inRepo = option(snippet, "cwd");
      let cwd = inRepo ? join(root, inRepo) : root;
      if (!inRepo && !snippet.marker.split(/\s+/).includes("in-repo")) {
        cwd = freshDir();
        if (!lines.some((c) => /^docket init(\s|$)/.test(c.line))) {
          const init = await sh("docket init", cwd);
          expect(init.code, init.out).toBe(0);
        }
      }
      for (const command of lines) {
        if (command.line.startsWith("cd ")) {
          cwd = join(cwd, command.line.slice(3).trim());
          continue;
        }
        const expected = Number(
          /#.*\bexit (\d+)/.exec(command.line)?.[1] ?? option(snippet, "exit") ?? 0,
        );
        const outcome = await sh(command.line, cwd);
        const said = `${whereIs(snippet, command.offset)}: ${command.line}\n${outcome.out.slice(-800)}`;
        expect(outcome.code, said).toBe(expected);
        if (snippet.marker.split(/\s+/).includes("loose")) continue;
        // What a console block shows must be what the command prints (up to an ellipsis).
        const missing = command.shows
          .map((line) => line.split("…")[0]?.trim() ?? "")
          .filter((line) => line !== "" && line !== "..." && !outcome.out.includes(line));
        expect(missing, `${said}\nthe block shows lines the command does not print`).toEqual([]);
      }
    }, 300_000);
  }
});
