import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { withRegistration } from "../../src/hook/hook-registration.js";
import type { HostName } from "../../src/hook/host-registry.js";
import type { AuditRecord } from "../../src/store/audit-record.js";
import type { CallRecord } from "../../src/store/call-record.js";
import { openStore } from "../../src/store/open-store.js";
import type { Session } from "../../src/store/session-record.js";
import { installedCliPath, useInstalledCli } from "./installed-cli.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
// The hooks the hosts run are the installed CLI's: installed before each file's tests start.
useInstalledCli();

/** The policy of the host end-to-end tests: `touch` is denied, `mkdir` allowed. */
export const TOUCH_DENIED_MKDIR_ALLOWED = [
  "policy:",
  "  rules:",
  "    - { id: no-touch, tool: run_command, command: 'touch *', decision: deny }",
  "    - { id: mkdir-ok, tool: run_command, command: 'mkdir *', decision: allow }",
  "",
].join("\n");

/**
 * The installed binary of a real host (`claude`, `gemini`, `codex`) in node_modules/.bin.
 *
 * @example
 * ```ts
 * await run(hostBinary("claude"), ["-p", "hi"]);
 * ```
 */
export function hostBinary(name: "claude" | "gemini" | "codex"): string {
  return join(root, "node_modules", ".bin", name);
}

/**
 * The hook command a host runs: the installed CLI (`docket hook HOST`, the packed package's
 * bundle), with `--config` when given, quoted for the host's shell. Call it in a test or hook.
 *
 * @example
 * ```ts
 * withRegistration("claude-code", "", docketHookCommand("claude-code"), 60, "settings.json");
 * ```
 */
export function docketHookCommand(host: HostName, config?: string): string {
  const base = `${JSON.stringify(process.execPath)} ${JSON.stringify(installedCliPath())} hook ${host}`;
  return config === undefined ? base : `${base} --config ${JSON.stringify(config)}`;
}

/**
 * The environment of a real Claude Code run against a fake Anthropic server at `url`: its own
 * home, a fake key, no updater and no traffic besides the model's.
 *
 * @example
 * ```ts
 * await run(hostBinary("claude"), ["-p", "hi"], { env: claudeEnv(w.home, fake.url) });
 * ```
 */
export function claudeEnv(home: string, url: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOME: home,
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: "sk-ant-fake",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    TERM: "xterm-256color",
  };
}

/**
 * Run the real gemini-cli headless (`-p`, YOLO: it approves every call itself, so docket is the
 * only gate) in `ws` against a fake Gemini API at `url`, with docket registered in the home's
 * `.gemini/settings.json` as `docket hook install gemini-cli` writes it. `env` adds variables.
 *
 * @example
 * ```ts
 * await runGemini(w, fake.url, "make the two things");
 * ```
 */
export async function runGemini(
  w: Pick<HostWorkspace, "ws" | "home" | "config">,
  url: string,
  prompt: string,
  env: NodeJS.ProcessEnv = {},
): Promise<void> {
  await mkdir(join(w.home, ".gemini"), { recursive: true });
  await writeFile(
    join(w.home, ".gemini", "settings.json"),
    withRegistration(
      "gemini-cli",
      JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }),
      docketHookCommand("gemini-cli", w.config),
      60,
      "settings.json",
    ),
  );
  await promisify(execFile)(
    hostBinary("gemini"),
    ["-p", prompt, "--approval-mode", "yolo", "-o", "json"],
    {
      cwd: w.ws,
      env: {
        ...process.env,
        HOME: w.home,
        GEMINI_API_KEY: "fake-key",
        GOOGLE_GEMINI_BASE_URL: url,
        GEMINI_CLI_TRUST_WORKSPACE: "true",
        ...env,
      },
      timeout: 150_000,
    },
  );
}

/**
 * The real opencode binary (opencode-ai, pinned in package.json): node_modules/.bin/opencode, or
 * `DOCKET_TEST_OPENCODE` where it is installed elsewhere.
 *
 * @example
 * ```ts
 * await run(opencodeBinary(), ["run", "hi"]);
 * ```
 */
export function opencodeBinary(): string {
  return process.env.DOCKET_TEST_OPENCODE || join(root, "node_modules", ".bin", "opencode");
}

/**
 * Run the real opencode headless (`opencode run`) in `ws` against a fake Chat Completions API at
 * `url`: a provider for the fake in `OPENCODE_CONFIG_CONTENT` (no models.dev, no update check, no
 * default plugins),
 * its own permission prompt off for bash (docket is the gate under test), and docket's plugin in
 * `ws/.opencode/plugin/docket.js` as `docket hook install opencode` writes it. `env` adds variables.
 *
 * @example
 * ```ts
 * await runOpencode(w, fake.url, "make the two things");
 * ```
 */
export async function runOpencode(
  w: Pick<HostWorkspace, "ws" | "home" | "config">,
  url: string,
  prompt: string,
  env: NodeJS.ProcessEnv = {},
): Promise<void> {
  await mkdir(join(w.ws, ".opencode", "plugin"), { recursive: true });
  await writeFile(
    join(w.ws, ".opencode", "plugin", "docket.js"),
    withRegistration("opencode", "", docketHookCommand("opencode", w.config), 60, "docket.js"),
  );
  const config = {
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        name: "fake",
        options: { baseURL: `${url}/v1`, apiKey: "fake-key" },
        models: { "fake-model": { name: "fake" } },
      },
    },
    model: "fake/fake-model",
    permission: { bash: "allow", edit: "allow" },
  };
  const seeded = await seedOpencodePackages(w.ws);
  const opencode = promisify(execFile)(opencodeBinary(), ["run", prompt], {
    cwd: w.ws,
    env: {
      ...process.env,
      // opencode takes its folder from PWD, not from the process's working directory.
      PWD: w.ws,
      HOME: w.home,
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      // Its default plugins (provider logins) come from the registry at every start: 20-30 s
      // here, and nothing docket's plugin needs.
      OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
      ...env,
    },
    timeout: 280_000,
  });
  // opencode run reads a standard input that is not a terminal, until it ends.
  opencode.child.stdin?.end();
  await opencode;
  if (!seeded) await keepOpencodePackages(w.ws);
}

// opencode installs its plugin package (@opencode-ai/plugin, about 64 MB from the registry) into
// every project whose .opencode/ holds a plugin, before its first turn: about 12 s a run here.
// The first run of a test run installs it as opencode does; later runs start from a hard-linked
// copy of that install, as a machine that ran opencode in the project before would.
const opencodePackages = join(
  tmpdir(),
  `docket-opencode-packages-u${process.getuid?.() ?? 0}-${opencodeVersion()}`,
);

function opencodeVersion(): string {
  try {
    const manifest = join(root, "node_modules", "opencode-ai", "package.json");
    return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}
const OPENCODE_INSTALLED = ["package.json", "package-lock.json", "node_modules"] as const;

/**
 * Give `ws/.opencode` the plugin packages an earlier run installed, if one did: true when it did.
 *
 * @example
 * ```ts
 * const seeded = await seedOpencodePackages(w.ws); // before opencode runs in w.ws
 * ```
 */
export async function seedOpencodePackages(ws: string): Promise<boolean> {
  if (!existsSync(join(opencodePackages, "ready"))) return false;
  await mkdir(join(ws, ".opencode"), { recursive: true });
  for (const name of OPENCODE_INSTALLED) {
    await promisify(execFile)("cp", ["-al", join(opencodePackages, name), join(ws, ".opencode")]);
  }
  return true;
}

/**
 * Keep what opencode installed into `ws/.opencode` for later runs (the first complete copy wins).
 *
 * @example
 * ```ts
 * if (!seeded) await keepOpencodePackages(w.ws); // after opencode ran in w.ws
 * ```
 */
export async function keepOpencodePackages(ws: string): Promise<void> {
  const from = join(ws, ".opencode");
  if (!OPENCODE_INSTALLED.every((name) => existsSync(join(from, name)))) return;
  const staging = await mkdtemp(`${opencodePackages}-staging-`);
  try {
    for (const name of OPENCODE_INSTALLED) {
      await promisify(execFile)("cp", ["-al", join(from, name), staging]);
    }
    await writeFile(join(staging, "ready"), "");
    await rename(staging, opencodePackages);
  } catch {
    // Another worker kept its copy first: this one is not needed.
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** A temp dir with a project (`ws`, holding docket.yaml) and a home for the host. */
export interface HostWorkspace {
  readonly dir: string;
  readonly ws: string;
  readonly home: string;
  /** The project's docket.yaml. */
  readonly config: string;
  remove(): Promise<void>;
}

/**
 * Make a host test's workspace: `ws` with `policy` as its docket.yaml (and the folders named in
 * `dirs`, relative to `ws` or `home`), and an empty `home`.
 *
 * @example
 * ```ts
 * const w = await hostWorkspace("claude", { dirs: ["ws/.claude"] });
 * ```
 */
export async function hostWorkspace(
  name: string,
  { policy = TOUCH_DENIED_MKDIR_ALLOWED, dirs = [] }: { policy?: string; dirs?: string[] } = {},
): Promise<HostWorkspace> {
  const dir = await mkdtemp(join(tmpdir(), `docket-${name}-e2e-`));
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  for (const path of [ws, home, ...dirs.map((d) => join(dir, d))]) {
    await mkdir(path, { recursive: true });
  }
  const config = join(ws, "docket.yaml");
  await writeFile(config, policy);
  return { dir, ws, home, config, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** What a host's run left in the project's store. */
export interface HostTrail {
  readonly sessions: Session[];
  /** The first session's calls and events. */
  readonly calls: CallRecord[];
  readonly events: AuditRecord[];
  /** The event types of one call id, in order. */
  typesOf(callId: string): string[];
  /** `rule` to result status, for every call of the first session. */
  statusByRule(): Record<string, string | undefined>;
  readonly verified: boolean;
}

/**
 * Read the store a host's hook wrote (`ws/.docket/docket.db`), read-only.
 *
 * @example
 * ```ts
 * const trail = await readHostTrail(w.ws);
 * expect(trail.statusByRule()).toEqual({ "no-touch": "refused", "mkdir-ok": "ok" });
 * ```
 */
export async function readHostTrail(ws: string): Promise<HostTrail> {
  const store = await openStore(`sqlite:${join(ws, ".docket", "docket.db")}`, { readOnly: true });
  try {
    const sessions = await store.listSessions();
    const sessionId = sessions[0]?.id;
    // The hook may commit while this reads: the calls and the events are taken between two reads
    // of the events that agree, so they are of one commit (a call's row changes only with its
    // events). Read apart, a poll that saw an event could see the call's row from before it.
    let events = await store.listEvents({ sessionId });
    let calls = await store.listCalls({ sessionId });
    for (;;) {
      const again = await store.listEvents({ sessionId });
      if (again.length === events.length) break;
      events = again;
      calls = await store.listCalls({ sessionId });
    }
    const verified = (await store.verifyChain()).ok;
    return {
      sessions,
      calls,
      events,
      verified,
      typesOf: (callId) => events.filter((e) => e.callId === callId).map((e) => e.type),
      statusByRule: () => Object.fromEntries(calls.map((call) => [call.rule ?? "", call.status])),
    };
  } finally {
    await store.close();
  }
}

/**
 * Run the real Codex CLI (`codex exec`) in `ws` against a fake Responses API at `url`: its
 * config.toml under `home/.codex` is a `model_providers` entry for the fake, with `extra` (the
 * hook registration) after it. Its own sandbox is off and hook trust bypassed: docket is the
 * gate under test, and a test has nobody to review hooks.
 *
 * @example
 * ```ts
 * await runCodex(w, fake.url, (toml) => withRegistration("codex", toml, hook, 60, "config.toml"));
 * ```
 */
export async function runCodex(
  w: Pick<HostWorkspace, "ws" | "home">,
  url: string,
  register: (toml: string) => string = (toml) => toml,
  prompt = "go",
): Promise<void> {
  const codexHome = join(w.home, ".codex");
  await mkdir(codexHome, { recursive: true });
  const provider = [
    'model = "gpt-fake"',
    'model_provider = "fake"',
    "[model_providers.fake]",
    'name = "fake"',
    `base_url = "${url}/v1"`,
    'wire_api = "responses"',
    'env_key = "FAKE_CODEX_KEY"',
    "",
  ].join("\n");
  await writeFile(join(codexHome, "config.toml"), register(provider));
  const codex = promisify(execFile)(
    hostBinary("codex"),
    [
      "exec",
      "--dangerously-bypass-hook-trust",
      "--skip-git-repo-check",
      "-s",
      "danger-full-access",
      prompt,
    ],
    {
      cwd: w.ws,
      env: { ...process.env, HOME: w.home, CODEX_HOME: codexHome, FAKE_CODEX_KEY: "fake" },
      timeout: 150_000,
    },
  );
  // codex exec reads a prompt from a standard input that is not a terminal, until it ends.
  codex.child.stdin?.end();
  await codex;
}
