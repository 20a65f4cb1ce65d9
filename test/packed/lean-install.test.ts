import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  installedPackages,
  OPTIONAL_PEERS,
  type PackedProject,
  packedDocket,
  runPacked,
} from "../support/packed-docket.js";

// docket installed alone (`npm i TARBALL` in an empty project): what it brings, what it runs
// without the optional peers, what it says when a missing one is configured, and an app that
// imports it bundled into one file.
const exec = promisify(execFile);
const esbuild = fileURLToPath(new URL("../../node_modules/.bin/esbuild", import.meta.url));
const REQUIRE_BANNER =
  "import { createRequire as topLevelCreateRequire } from 'node:module'; const require = topLevelCreateRequire(import.meta.url);";
const nodeMajor = Number(process.versions.node.split(".")[0]);

let lean: PackedProject;
let work: string;
beforeAll(async () => {
  lean = await packedDocket("lean");
  work = await mkdtemp(join(lean.dir, "lean-"));
  await writeFile(join(work, "script.yaml"), 'turns:\n  - text: "Hello."\n');
  await writeFile(join(work, "docket.yaml"), "model: scripted:script.yaml\n");
}, 900_000);
afterAll(() => rm(work, { recursive: true, force: true }));

// An app as a user writes it: one tool, a scripted model, the SQLite store, a policy.
const APP = `import { createHarness, defineTool, openStore, parseModelScript, createScriptedModel } from "docket";
import { z } from "zod";
const refunds = [];
const issueRefund = defineTool({
  name: "issue_refund",
  description: "Refund an order.",
  input: z.object({ order_id: z.string(), amount: z.number() }),
  writes: true,
  handler: ({ order_id, amount }) => { refunds.push(order_id); return { refunded: amount }; },
});
const script = parseModelScript(\`turns:
  - tool_calls:
      - { id: call_small, name: issue_refund, arguments: '{"order_id":"SU-1","amount":20}' }
      - { id: call_big, name: issue_refund, arguments: '{"order_id":"SU-2","amount":900}' }
      - { id: call_shell, name: run_command, arguments: '{"command":"ls"}' }
  - text: Done.
\`, "inline");
const store = await openStore("sqlite:" + process.argv[2]);
const harness = createHarness({
  model: createScriptedModel(script),
  tools: [issueRefund],
  store,
  policy: { rules: [
    { id: "small", decision: "allow", tool: "issue_refund", when: "args.amount <= 150" },
    { id: "big", decision: "deny", tool: "issue_refund", when: "args.amount > 150", reason: "over the limit" },
  ] },
});
const result = await harness.run("Refund both.");
const calls = await store.listCalls({ sessionId: result.sessionId });
console.log(JSON.stringify({ status: result.status, text: result.text, refunds, calls: calls.map((c) => [c.callId, c.status]) }));
await store.close();
`;

describe("docket installed alone", () => {
  it("brings none of the optional peers nor the native grammar package, in a small tarball", async () => {
    const packages = installedPackages(lean.dir);
    for (const peer of [...OPTIONAL_PEERS, "tree-sitter-bash", "@opentelemetry/sdk-node"]) {
      expect(packages, peer).not.toContain(peer);
    }
    expect(packages).toEqual(expect.arrayContaining(["docket", "web-tree-sitter"]));
    // SQLite is Node's own (node:sqlite): no native package, nothing compiled at install.
    expect(packages).not.toContain("better-sqlite3");
    expect((await stat(lean.tarball)).size).toBeLessThanOrEqual(1.5 * 1024 * 1024);
    // Node 20 is outside the engines (and the AI SDK's): warnings there are expected.
    if (nodeMajor >= 22) expect(lean.installWarnings).not.toMatch(/EBADENGINE|deprecated|script/i);
  });

  it("runs a SQLite-backed library agent: allowed, denied and unknown calls, each recorded", async () => {
    await writeFile(join(work, "app.mjs"), APP);
    const { stdout } = await exec(process.execPath, ["app.mjs", join(work, "app.db")], {
      cwd: work,
    });
    const outcome = JSON.parse(stdout) as { status: string; refunds: string[]; calls: string[][] };
    expect(outcome.status).toBe("completed");
    expect(outcome.refunds).toEqual(["SU-1"]);
    expect(outcome.calls).toEqual(
      expect.arrayContaining([
        ["call_small", "ok"],
        ["call_big", "refused"],
        ["call_shell", "refused"],
      ]),
    );
  });

  it("bundles with esbuild into one file that starts without pg and runs the same agent", async () => {
    await writeFile(join(work, "app.mjs"), APP);
    await exec(
      esbuild,
      [
        "app.mjs",
        "--bundle",
        "--platform=node",
        "--format=esm",
        "--outfile=out/app.bundle.mjs",
        // The documented recipe (README, "Bundling"): CommonJS dependencies inside an ES module
        // bundle still call require().
        `--banner:js=${REQUIRE_BANNER}`,
      ],
      { cwd: work },
    );
    const bundle = await readFile(join(work, "out/app.bundle.mjs"), "utf8");
    expect(bundle).not.toMatch(/from\s*["']docket["']/);
    const { stdout } = await exec(process.execPath, ["out/app.bundle.mjs", join(work, "b.db")], {
      cwd: work,
    });
    expect(JSON.parse(stdout)).toMatchObject({ status: "completed", refunds: ["SU-1"] });
  });

  it("names the package to add when a missing optional peer is configured", async () => {
    const oneLine = (stderr: string) => {
      const lines = stderr.split("\n").filter((line) => line.trim() !== "");
      expect(lines, stderr).toHaveLength(1);
      expect(stderr).not.toMatch(/\n\s+at /);
      return lines[0] ?? "";
    };
    const anthropic = await runPacked(lean, ["run", "--model", "anthropic:claude-x", "hi"], {
      cwd: work,
      env: { ANTHROPIC_API_KEY: "sk-test" },
    });
    expect(anthropic.code).not.toBe(0);
    expect(oneLine(anthropic.stderr)).toMatch(/"@ai-sdk\/anthropic".*npm i -E @ai-sdk\/anthropic/);

    const local = await runPacked(lean, ["run", "--model", "ollama:llama3.1", "hi"], { cwd: work });
    expect(oneLine(local.stderr)).toMatch(/"@ai-sdk\/openai-compatible"/);

    const telemetry = await runPacked(lean, ["run", "hi"], {
      cwd: work,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" },
    });
    expect(telemetry.code).not.toBe(0);
    expect(oneLine(telemetry.stderr)).toMatch(/"@opentelemetry\/[a-z-]+".*npm i -E @opentelemetry/);

    const postgres = await runPacked(
      lean,
      ["audit", "list", "--store", "postgres://127.0.0.1:1/x"],
      {
        cwd: work,
      },
    );
    expect(postgres.code).not.toBe(0);
    expect(oneLine(postgres.stderr)).toMatch(/"pg" package.*npm i -E pg/);
  });
});
