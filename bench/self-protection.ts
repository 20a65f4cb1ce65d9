import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toolFromMeta } from "../src/policy/builtin-tool-meta.js";
import type { PolicyRequest } from "../src/policy/policy.js";
import { createPolicyEngine } from "../src/policy/policy-engine.js";
import type { PolicyLayer } from "../src/policy/policy-rule.js";
import { runtimeOwnFiles } from "../src/protect/runtime-own-files.js";
import { summarise, us } from "./stats.js";

const SCRIPT =
  "git status --short && ls -la src test | grep -v node_modules | sort | head -n 400; " +
  "cat package.json | wc -l && git log --oneline -n 5 && (cd docs && ls) || echo 'no docs'; " +
  'LC_ALL=C grep -rn "TODO" src';

async function measure(fn: () => unknown, batches: number, perBatch: number): Promise<number[]> {
  const durations: number[] = [];
  for (let b = 0; b < batches; b++) {
    const start = performance.now();
    for (let k = 0; k < perBatch; k++) {
      const result = fn();
      if (result instanceof Promise) await result;
    }
    durations.push((performance.now() - start) / perBatch);
  }
  return durations;
}

const request = (name: string, args: Record<string, unknown>, command = false): PolicyRequest => ({
  tool: toolFromMeta(name, { writes: true, policyArgs: command ? { command: "command" } : {} }),
  args,
  rawArguments: JSON.stringify(args),
  callId: "c1",
  principal: "agent",
  sessionId: undefined,
});

/**
 * What docket's self-protection vote adds to a decision: an MCP-style call with three string
 * arguments (every string is checked against docket's own files) and a 200-character shell
 * command from the analysis cache (every token checked), with protection and without.
 *
 * @example
 * ```ts
 * await benchSelfProtection(); // `npm run bench selfprotect`
 * ```
 */
export async function benchSelfProtection(): Promise<void> {
  const ws = mkdtempSync(join(tmpdir(), "docket-bench-self-"));
  try {
    const layers: PolicyLayer[] = [
      {
        name: "user",
        rules: [
          {
            decision: "allow",
            tool: "run_command",
            command: [
              "git *",
              "ls *",
              "grep *",
              "sort *",
              "head *",
              "cat *",
              "wc *",
              "cd *",
              "echo *",
            ],
          },
        ],
      },
    ];
    const protection = {
      ownFiles: runtimeOwnFiles({ storeUrl: "sqlite:.docket/docket.db", workspace: ws, cwd: ws }),
    };
    const bare = await createPolicyEngine({ layers, workspace: ws });
    const guarded = await createPolicyEngine({ layers, workspace: ws, protection });
    const mcp = request("files__write", { path: "src/app.ts", mode: "overwrite", note: "fix it" });
    const shell = request("run_command", { command: SCRIPT }, true);
    const lines: string[] = [];
    for (const [label, call] of [
      ["MCP call, 3 strings", mcp],
      [`shell, ${SCRIPT.length} chars`, shell],
    ] as const) {
      const times: Record<string, string> = {};
      for (const [kind, engine] of [
        ["without", bare],
        ["with", guarded],
      ] as const) {
        const fn = () => engine.decide(call);
        await measure(fn, 50, 50);
        const t = summarise(await measure(fn, 200, 50));
        times[kind] = `median ${us(t.medianUs)}  p99 ${us(t.p99Us)}`;
      }
      lines.push(`  ${label.padEnd(22)} without: ${times.without}   with: ${times.with}`);
    }
    console.log("bench/self-protection: one decision, without and with docket's self-protection");
    for (const line of lines) console.log(line);
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchSelfProtection();
