import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// Every ```ts block under an @example in src/ is typechecked as a module beside its source file,
// with that file's exports in scope (an example shows its own module's API). What already fails
// is listed in the ratchet file: a new failure fails this test, and so does a listed example
// that now passes (take it off the list). The list only shrinks.
const root = fileURLToPath(new URL("..", import.meta.url));
const ratchetFile = join(root, "test", "fixtures", "jsdoc-examples-failing.txt");

const RATCHET_HEADER =
  "# @example blocks in src/ that do not typecheck yet (test/jsdoc-examples.test.ts). Only shrinks.\n";

interface Example {
  readonly id: string;
  readonly virtual: string;
  readonly text: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

const EXPORT =
  /^export\s+(?:declare\s+)?(?:async\s+)?(function\*?|const|let|class|interface|type|enum)\s+(\w+)/gm;

function examplesOf(file: string): Example[] {
  const source = readFileSync(file, "utf8");
  const exported = [...source.matchAll(EXPORT)].map((m) => ({ kind: m[1], name: m[2] as string }));
  const examples: Example[] = [];
  let n = 0;
  for (const doc of source.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const lines = doc[0].split("\n").map((line) => line.replace(/^\s*\*( |$)/, ""));
    const text = lines.join("\n");
    for (const block of text.matchAll(/@example\s*\n```ts\n([\s\S]*?)\n```/g)) {
      const code = block[1] as string;
      n += 1;
      const declared = new Set(
        [...code.matchAll(/\b(?:const|let|var|function|class|interface|type)\s+(\w+)/g)].map(
          (m) => m[1],
        ),
      );
      const imported = new Set(
        [...code.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}/g)].flatMap((m) =>
          (m[1] as string).split(",").map(
            (part) =>
              part
                .trim()
                .split(/\s+as\s+/)
                .pop()
                ?.replace(/^type\s+/, "") ?? "",
          ),
        ),
      );
      const inScope = exported.filter(({ name }) => !declared.has(name) && !imported.has(name));
      const values = inScope
        .filter(({ kind }) => kind !== "interface" && kind !== "type")
        .map((e) => e.name);
      const types = inScope
        .filter(({ kind }) => kind === "interface" || kind === "type")
        .map((e) => e.name);
      const own = `./${basename(file).replace(/\.ts$/, ".js")}`;
      const header = [
        ...(values.length ? [`import { ${values.join(", ")} } from "${own}";`] : []),
        ...(types.length ? [`import type { ${types.join(", ")} } from "${own}";`] : []),
      ].join("\n");
      const id = `${relative(root, file)}#${n}`;
      const virtual = join(dirname(file), `__example_${basename(file, ".ts")}_${n}.ts`);
      examples.push({ id, virtual, text: `${header}\n${code}\nexport {};\n` });
    }
  }
  return examples;
}

function failingExamples(examples: readonly Example[]): Map<string, string> {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => undefined,
    },
  );
  if (!config) throw new Error("tsconfig.json did not load");
  const byPath = new Map(examples.map((example) => [example.virtual, example]));
  const host = ts.createCompilerHost(config.options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  host.readFile = (path) => byPath.get(path)?.text ?? read(path);
  host.fileExists = (path) => byPath.has(path) || exists(path);
  const program = ts.createProgram(
    [...byPath.keys()],
    { ...config.options, noUnusedLocals: false },
    host,
  );
  const failing = new Map<string, string>();
  for (const example of examples) {
    const file = program.getSourceFile(example.virtual);
    if (!file) continue;
    const diagnostics = [
      ...program.getSyntacticDiagnostics(file),
      ...program.getSemanticDiagnostics(file),
    ];
    const first = diagnostics[0];
    if (first) failing.set(example.id, ts.flattenDiagnosticMessageText(first.messageText, "\n"));
  }
  return failing;
}

describe("@example blocks in src/", () => {
  it("typecheck, except those on the shrinking list", () => {
    const examples = sourceFiles(join(root, "src")).flatMap(examplesOf);
    const failing = failingExamples(examples);
    if (process.env.DOCKET_RECORD_EXAMPLE_RATCHET === "1") {
      // Records the list as it stands: for the first recording only; after that fix, never add.
      writeFileSync(ratchetFile, `${RATCHET_HEADER}${[...failing.keys()].sort().join("\n")}\n`);
    }
    const listed = new Set(
      readFileSync(ratchetFile, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "" && !line.startsWith("#")),
    );
    const newlyFailing = [...failing]
      .filter(([id]) => !listed.has(id))
      .map(([id, why]) => `${id}: ${why}`);
    const nowPassing = [...listed].filter((id) => !failing.has(id));
    console.info(
      `@example blocks: ${examples.length}, typecheck: ${examples.length - failing.size}, on the list: ${listed.size}`,
    );
    expect(newlyFailing, "fix these examples (they do not typecheck)").toEqual([]);
    expect(nowPassing, `these now typecheck: take them off ${relative(root, ratchetFile)}`).toEqual(
      [],
    );
  }, 300_000);
});
