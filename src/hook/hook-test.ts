import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import * as path from "node:path";
import { parseJson } from "../shared/parse-json.js";
import type { CallRecord } from "../store/call-record.js";
import type { Store } from "../store/store.js";
import { type HostName, hostAdapter } from "./host-registry.js";
import { openHookRuntime } from "./open-hook-runtime.js";
import { type ProbeCall, type ProbeResult, startProbeServer } from "./probe/probe-server.js";

/** What `docket hook test HOST` runs. */
export interface HookTestOptions {
  readonly host: HostName;
  /** The project the host runs in, where docket is registered (default: the current folder). */
  readonly project?: string;
  readonly config?: string | undefined;
  readonly store?: string | undefined;
  /** The host's command (default: its adapter's, on PATH). */
  readonly binary?: string | undefined;
  /** A command the policy denies (default: one into docket's own folder, denied whatever the rules). */
  readonly deny?: string | undefined;
  /** A command the policy allows (default `ls -a`, which `docket init`'s policy allows). */
  readonly allow?: string | undefined;
  readonly timeoutMs?: number;
  readonly env?: NodeJS.ProcessEnv;
}

/** One thing the test proves, or fails to. */
export interface HookTestCheck {
  readonly ok: boolean;
  readonly label: string;
  readonly detail: string;
}

/** The test's outcome: every check passed, some failed, or it could not run at all. */
export type HookTestReport =
  | { readonly status: "passed" | "failed"; readonly checks: readonly HookTestCheck[] }
  | { readonly status: "not_run"; readonly reason: string };

const PROMPT = "docket hook test: run the two shell commands you are asked for.";

/**
 * Prove docket governs the installed host here: start it headless in the project against a local
 * probe model that asks for a shell call the policy denies and then one it allows, and check what
 * happened: the host asked docket, the denied call did not run, the allowed one did, and both are
 * in docket's audit trail, its chain verified. Passed only when every check holds.
 *
 * @example
 * ```ts
 * const report = await runHookTest({ host: "claude-code" });
 * if (report.status === "passed") console.log("docket blocks what it should here");
 * ```
 */
export async function runHookTest({
  host,
  project = process.cwd(),
  config,
  store,
  binary,
  deny,
  allow = "ls -a",
  timeoutMs = 180_000,
  env = process.env,
}: HookTestOptions): Promise<HookTestReport> {
  const adapter = hostAdapter(host);
  const probe = adapter.probe;
  if (probe === undefined) {
    return { status: "not_run", reason: `docket hook test cannot drive ${adapter.title} yet` };
  }
  const nonce = randomBytes(4).toString("hex");
  const marker = path.join(project, ".docket", `hook-test-${nonce}`);
  const denied = { id: `toolu_docket_test_deny_${nonce}`, command: deny ?? `touch ${marker}` };
  const allowed = { id: `toolu_docket_test_allow_${nonce}`, command: allow };
  const server = await startProbeServer(await probe.protocol(), [denied, allowed]);
  const since = Date.now() - 1000;
  let run: HostRun;
  try {
    run = await runHost(binary ?? probe.binary, probe.args(PROMPT, server.url), {
      cwd: project,
      env: probe.env(server.url, env),
      timeoutMs,
    });
  } finally {
    await server.close();
  }
  if (run.status === "not_started") {
    return { status: "not_run", reason: `${adapter.title} did not start: ${run.reason}` };
  }
  const runtime = await openHookRuntime({ config, store, env });
  try {
    const deniedCall = await findProbeCall(runtime.store, denied, since);
    const allowedCall = await findProbeCall(runtime.store, allowed, since);
    const markerMade = deny === undefined && existsSync(marker);
    if (markerMade) rmSync(marker, { force: true });
    const sessions = [
      ...new Set([deniedCall, allowedCall].flatMap((c) => (c ? [c.sessionId] : []))),
    ];
    const verified = await Promise.all(sessions.map((id) => runtime.store.verifyChain(id)));
    const seenOf = (id: string) => server.seen.find((result) => result.callId === id);
    const checks = [
      check(
        `${adapter.title} ran headless against the probe model`,
        server.requests > 0,
        `${server.requests} model requests; ${run.summary}`,
      ),
      check(
        `${adapter.title} asked docket`,
        deniedCall !== undefined,
        deniedCall
          ? `session ${deniedCall.sessionId}`
          : `no call ${denied.id} in docket's store: ${probe.notAsked}`,
      ),
      deniedCheck(denied.command, deniedCall, seenOf(denied.id), markerMade),
      allowedCheck(allowed.command, allowedCall, seenOf(allowed.id)),
      check(
        "both calls are in the audit trail, the chain verified",
        deniedCall !== undefined &&
          allowedCall !== undefined &&
          verified.every((verification) => verification.ok),
        sessions.length > 0 ? `session ${sessions.join(", ")}` : "no session",
      ),
    ];
    return { status: checks.every((c) => c.ok) ? "passed" : "failed", checks };
  } finally {
    await runtime.close();
  }
}

/**
 * The call docket recorded for a probe call: by its id where the host passes the model's call id
 * on (Claude Code), else by its command among the shell calls requested since the test began
 * (gemini-cli, whose calls docket names by a hash of their input).
 */
async function findProbeCall(
  store: Store,
  call: ProbeCall,
  since: number,
): Promise<CallRecord | undefined> {
  const direct = (await store.listCalls({ callId: call.id }))[0];
  if (direct) return direct;
  const requested = await store.listEvents({ type: "requested", tool: "run_command", since });
  const match = requested.find((record) => {
    const raw = (record.event as { rawArguments?: unknown }).rawArguments;
    if (typeof raw !== "string") return false;
    try {
      return Object.values(parseJson(raw) as object).includes(call.command);
    } catch {
      return false;
    }
  });
  if (match === undefined) return undefined;
  return (await store.listCalls({ sessionId: match.sessionId, callId: match.callId }))[0];
}

const check = (label: string, ok: boolean, detail: string): HookTestCheck => ({
  ok,
  label,
  detail,
});

function deniedCheck(
  command: string,
  call: CallRecord | undefined,
  seen: ProbeResult | undefined,
  markerMade: boolean,
): HookTestCheck {
  const label = `the denied call did not run: ${command}`;
  if (markerMade) return check(label, false, "it ran: the file it makes exists");
  if (call === undefined) return check(label, false, "docket has no record of it");
  const ok = call.status === "refused" && call.startedAt === undefined;
  const rule = call.rule ? ` by ${call.rule}` : "";
  const told = seen ? `; the model was told: ${firstLine(seen.text)}` : "";
  return check(label, ok, `${call.status ?? "no outcome"}${rule}${told}`);
}

function allowedCheck(
  command: string,
  call: CallRecord | undefined,
  seen: ProbeResult | undefined,
): HookTestCheck {
  const label = `the allowed call ran: ${command}`;
  if (call === undefined) return check(label, false, "docket has no record of it");
  const ok = call.status === "ok" && seen !== undefined && !seen.isError;
  const rule = call.rule ? ` by ${call.rule}` : "";
  const told = seen ? `; the model got: ${firstLine(seen.text)}` : "; the model got no result";
  return check(label, ok, `${call.status ?? "no outcome"}${rule}${told}`);
}

function firstLine(text: string): string {
  const line = (text.split("\n").find((l) => l.trim() !== "") ?? "").trim();
  return line.length > 120 ? `${line.slice(0, 117)}...` : line || "(empty)";
}

type HostRun =
  | { readonly status: "ended"; readonly summary: string }
  | { readonly status: "not_started"; readonly reason: string };

/** Run the host to its end (or the deadline), keeping only the tail of what it printed. */
function runHost(
  file: string,
  args: readonly string[],
  { cwd, env, timeoutMs }: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<HostRun> {
  return new Promise((resolve) => {
    // PWD too: a host may take its folder from it (opencode) rather than from the cwd.
    const child = spawn(file, args, {
      cwd,
      env: { ...env, PWD: cwd },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let tail = "";
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString("utf8")).slice(-2000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ status: "not_started", reason: error.message });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const how = signal ? `ended by ${signal}` : `exit code ${code}`;
      const last = firstLine(tail.split("\n").reverse().join("\n"));
      resolve({ status: "ended", summary: code === 0 ? how : `${how}: ${last}` });
    });
  });
}
