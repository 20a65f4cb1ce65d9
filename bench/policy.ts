import { toolFromMeta } from "../src/policy/builtin-tool-meta.js";
import type { PolicyRequest } from "../src/policy/policy.js";
import { createPolicyEngine } from "../src/policy/policy-engine.js";
import type { PolicyLayer, PolicyRuleSpec } from "../src/policy/policy-rule.js";
import { readOnlyVerdict } from "../src/policy/shell/read-only-script.js";
import { loadShellParser } from "../src/policy/shell/shell-parser.js";
import { summarise, us } from "./stats.js";

const TOOLS = 1_000;
const RULES = 10_000;
// A 200-character compound command through pipes, lists, a subshell and an assignment.
const SCRIPT =
  "git status --short && ls -la src test | grep -v node_modules | sort | head -n 400; " +
  "cat package.json | wc -l && git log --oneline -n 5 && (cd docs && ls) || echo 'no docs'; " +
  'LC_ALL=C grep -rn "TODO" src';
// The same length with the shapes issue 14 examines: ${…} operators, arithmetic, [[ -gt ]].
const SCRIPT_EXPANSIONS =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a template
  "f=src/a.ts; n=3; echo ${f%.ts}.js ${HOME:-/tmp} $((n * 2)); git log --oneline -n $((n + 2)) | " +
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a template
  "head -n 5; [[ $n -gt 2 ]] && git diff --stat HEAD~1; s=abcdef; echo ${s:1:3} ${f##*/} ${s^^} ${s,,}";
const ALLOWED_COMMANDS = [
  "ls *",
  "grep *",
  "git status *",
  "git log *",
  "git diff *",
  "cat *",
  "wc *",
  "head *",
  "sort *",
  "cd *",
  "echo *",
];

/** Time `fn` in batches (performance.now() is too coarse for one sub-microsecond call). */
async function measure(
  fn: (i: number) => unknown,
  batches: number,
  perBatch: number,
): Promise<number[]> {
  const durations: number[] = [];
  let i = 0;
  for (let b = 0; b < batches; b++) {
    const start = performance.now();
    for (let k = 0; k < perBatch; k++) {
      const result = fn(i++);
      if (result instanceof Promise) await result;
    }
    durations.push((performance.now() - start) / perBatch);
  }
  return durations;
}

// 10,000 rules over 1,000 tool names: most name one tool exactly (some with CEL), 2% use globs.
function manyRules(): PolicyRuleSpec[] {
  const rules: PolicyRuleSpec[] = [];
  for (let i = 0; i < RULES; i++) {
    const tool = `tool_${i % TOOLS}`;
    if (i % 50 === 0) rules.push({ decision: "ask", tool: `mcp__server${i % 97}__*` });
    else if (i % 3 === 0) rules.push({ decision: "ask", tool, when: `args.amount > ${i % 500}` });
    else if (i % 3 === 1)
      rules.push({ decision: "allow", tool, when: `principal == "agent-${i % 7}"` });
    else rules.push({ decision: i % 2 === 0 ? "allow" : "deny", tool: [tool, `alias_${i}`] });
  }
  return rules;
}

/**
 * Decision time of the policy engine: a non-shell call against 10,000 rules over 1,000 tool names
 * (target median ≤ 5 µs), and a 200-character compound shell command judged through the engine,
 * analysed each time (target median ≤ 300 µs) and from the analysis cache.
 *
 * @example
 * ```ts
 * await benchPolicy(); // prints the figures; `npx tsx bench/policy.ts` runs it alone
 * ```
 */
export async function benchPolicy(): Promise<void> {
  const shellLayers = (): PolicyLayer[] => [
    {
      name: "managed",
      rules: [{ decision: "deny", tool: "run_command", command: ["rm *", "curl *", "sudo *"] }],
    },
    {
      name: "user",
      rules: [{ decision: "allow", tool: "run_command", command: ALLOWED_COMMANDS }],
    },
  ];
  const loadStart = performance.now();
  const engine = await createPolicyEngine({
    workspace: process.cwd(),
    layers: [...shellLayers(), { name: "project", rules: manyRules() }],
  });
  const loadMs = performance.now() - loadStart;
  const uncached = await createPolicyEngine({ layers: shellLayers(), analysisCacheSize: 0 });

  const requests: PolicyRequest[] = [];
  for (let i = 0; i < 64; i++) {
    const tool = toolFromMeta(`tool_${(i * 37) % TOOLS}`, { writes: i % 2 === 0, policyArgs: {} });
    const args = { amount: (i * 13) % 400, order_id: `SU-${i}` };
    requests.push({
      tool,
      args,
      rawArguments: JSON.stringify(args),
      callId: `c${i}`,
      principal: `agent-${i % 7}`,
      sessionId: undefined,
    });
  }
  const plain = (i: number) => engine.decide(requests[i % requests.length] as PolicyRequest);
  await measure(plain, 200, 500);
  const plainTimes = summarise(await measure(plain, 400, 500));

  const shellTool = toolFromMeta("run_command", {
    writes: true,
    policyArgs: { command: "command" },
  });
  const shellRequest: PolicyRequest = {
    tool: shellTool,
    args: { command: SCRIPT },
    rawArguments: JSON.stringify({ command: SCRIPT }),
    callId: "shell",
    principal: "agent",
    sessionId: undefined,
  };
  const cold = () => uncached.decide(shellRequest);
  await measure(cold, 50, 5);
  const coldTimes = summarise(await measure(cold, 200, 5));
  const expansionRequest: PolicyRequest = {
    ...shellRequest,
    args: { command: SCRIPT_EXPANSIONS },
    rawArguments: JSON.stringify({ command: SCRIPT_EXPANSIONS }),
  };
  const coldExpansions = () => uncached.decide(expansionRequest);
  await measure(coldExpansions, 50, 5);
  const expansionTimes = summarise(await measure(coldExpansions, 200, 5));
  const expansionVerdict = await uncached.decide(expansionRequest);
  // run_command as the checkpoint sees it: the script analysed once more to decide whether the
  // call writes (the tool's own analysis, uncached), then the decision on the per-call tool.
  const parser = await loadShellParser();
  const perCall = () => {
    const writes = readOnlyVerdict(parser.analyse(SCRIPT)).status !== "read";
    return uncached.decide({
      ...shellRequest,
      tool: { ...shellTool, writes, writesPerCall: true },
    });
  };
  await measure(perCall, 50, 5);
  const perCallTimes = summarise(await measure(perCall, 200, 5));
  const perCallVerdict = await perCall();
  const cached = () => engine.decide(shellRequest);
  await measure(cached, 100, 50);
  const cachedTimes = summarise(await measure(cached, 200, 50));
  const verdict = await engine.decide(shellRequest);

  console.log(
    `bench/policy: ${RULES.toLocaleString("en-US")} rules over ${TOOLS.toLocaleString("en-US")} tool names (+ shell rules), compiled in ${loadMs.toFixed(0)} ms`,
  );
  console.log(
    `  non-shell decision            median ${us(plainTimes.medianUs)}  p99 ${us(plainTimes.p99Us)}  (target <= 5 µs)`,
  );
  console.log(
    `  shell, ${SCRIPT.length} chars, analysed    median ${us(coldTimes.medianUs)}  p99 ${us(coldTimes.p99Us)}  (target <= 300 µs)`,
  );
  console.log(
    `  shell, ${SCRIPT_EXPANSIONS.length} chars, \${…} and $((…)), analysed  median ${us(expansionTimes.medianUs)}  p99 ${us(expansionTimes.p99Us)}  (target <= 300 µs; ${expansionVerdict.decision})`,
  );
  console.log(
    `  run_command, ${SCRIPT.length} chars, writes decided per call + decision, analysed  median ${us(perCallTimes.medianUs)}  p99 ${us(perCallTimes.p99Us)}  (target <= 300 µs; ${perCallVerdict.decision} by ${perCallVerdict.rule})`,
  );
  console.log(
    `  shell, ${SCRIPT.length} chars, cache hit   median ${us(cachedTimes.medianUs)}  p99 ${us(cachedTimes.p99Us)}`,
  );
  console.log(`  shell verdict: ${verdict.decision} by ${verdict.rule}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchPolicy();
