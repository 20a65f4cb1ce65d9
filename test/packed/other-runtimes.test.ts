import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PackedProject, packedDocket, runPacked } from "../support/packed-docket.js";

// The checkpoint with a durable SQLite store on Bun and Deno, as a user installs them from the
// npm registry: the store runs on node:sqlite, which both provide (ADR 0053). The same library
// app as test/packed/lean-install.test.ts, signing with the default key; docket's CLI (on Node)
// then verifies the trail each runtime wrote. Once, on the Node line that runs the whole suite.
const exec = promisify(execFile);
const RUNTIMES = { bun: "1.4.5", deno: "2.9.6" } as const;
const onWholeSuiteNode = process.versions.node.startsWith("24.");

const APP = `import { createAuditSigner, createHarness, createScriptedModel, defineTool, openStore, parseModelScript } from "docket";
import { z } from "zod";
const refunds = [];
const issueRefund = defineTool({
  name: "issue_refund",
  description: "Refund an order. Use it when a customer is owed money.",
  input: z.object({ order_id: z.string().describe("The order."), amount: z.number().describe("USD.") }),
  writes: true,
  handler: ({ order_id, amount }) => { refunds.push(order_id); return { refunded: amount }; },
});
const script = parseModelScript(\`turns:
  - tool_calls:
      - { id: call_small, name: issue_refund, arguments: '{"order_id":"SU-1","amount":20}' }
      - { id: call_big, name: issue_refund, arguments: '{"order_id":"SU-2","amount":900}' }
  - text: Done.
\`, "inline");
const store = await openStore("sqlite:" + process.argv[2], { signer: await createAuditSigner() });
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
console.log(JSON.stringify({ status: result.status, refunds, calls: calls.map((c) => [c.callId, c.status]).sort() }));
await store.close();
`;

let lean: PackedProject;
let work: string;
let runtimes: string;
beforeAll(async () => {
  if (!onWholeSuiteNode) return;
  lean = await packedDocket("lean");
  work = await mkdtemp(join(lean.dir, "runtimes-"));
  await writeFile(join(work, "app.mjs"), APP);
  // Installed once per machine, beside the packed projects: about 100 MB each.
  runtimes = join(tmpdir(), `docket-runtimes-bun${RUNTIMES.bun}-deno${RUNTIMES.deno}`);
  if (!existsSync(join(runtimes, "node_modules/.bin/deno"))) {
    await mkdir(runtimes, { recursive: true });
    await exec(
      "npm",
      [
        "i",
        "--no-audit",
        "--no-fund",
        "--prefix",
        runtimes,
        `bun@${RUNTIMES.bun}`,
        `deno@${RUNTIMES.deno}`,
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
  }
}, 900_000);
afterAll(() => (work ? rm(work, { recursive: true, force: true }) : undefined));

const commands: Record<keyof typeof RUNTIMES, (app: string, db: string) => [string, string[]]> = {
  bun: (app, db) => [join(runtimes, "node_modules/.bin/bun"), [app, db]],
  deno: (app, db) => [join(runtimes, "node_modules/.bin/deno"), ["run", "-A", app, db]],
};

describe.skipIf(!onWholeSuiteNode).each(Object.keys(RUNTIMES) as (keyof typeof RUNTIMES)[])(
  "docket on %s",
  (runtime) => {
    it("runs the checkpoint with a signed SQLite store that docket's CLI verifies", async () => {
      const xdg = join(work, `${runtime}-config`);
      const db = join(work, `${runtime}.db`);
      const [file, args] = commands[runtime](join(work, "app.mjs"), db);
      const env = { ...process.env, XDG_CONFIG_HOME: xdg, NO_COLOR: "1" };
      const { stdout } = await exec(file, args, { cwd: work, env });
      expect(JSON.parse(stdout)).toEqual({
        status: "completed",
        refunds: ["SU-1"],
        calls: [
          ["call_big", "refused"],
          ["call_small", "ok"],
        ],
      });
      // Written by the other runtime, read by docket on Node: the same file format and chain.
      const verify = await runPacked(lean, ["audit", "verify", "--store", `sqlite:${db}`], {
        cwd: work,
        env: { XDG_CONFIG_HOME: xdg },
      });
      expect(verify.stdout, verify.stderr).toMatch(
        /^ok: \d+ events in 1 chain verified, with \d+ signed attestations/,
      );
      expect(verify.code).toBe(0);
      expect(await readFile(db)).not.toHaveLength(0);
    });
  },
);
