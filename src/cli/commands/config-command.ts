import type { Command } from "commander";
import { maskSecrets } from "../../shared/mask-secrets.js";
import { redactStoreUrl } from "../../store/store-url.js";
import { loadCliConfig } from "../load-cli-config.js";
import { buildSystemPrompt } from "../system-prompt.js";
import { CONFIG_FLAG_HELP, STORE_FLAG_HELP } from "./command-flags.js";

/** Keys whose values are credentials, and maps (`env`, `headers`) whose every value may be one. */
const SECRET_KEY = /token|secret|passw(or)?d|api[_-]?key|authori[sz]ation|cookie|credential/i;
const SECRET_MAP = /^(env|headers)$/i;

/** A value fit to print: credentials by key name replaced, the rest masked by shape. */
function masked(value: unknown, key = "", inMap = false): unknown {
  if (typeof value === "string") {
    if (inMap || (SECRET_KEY.test(key) && !/_env$|_sha256$/i.test(key))) return "***";
    return maskSecrets(value);
  }
  if (Array.isArray(value)) return value.map((item) => masked(item, key));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, masked(v, k, SECRET_MAP.test(key) || inMap)]),
    );
  }
  return value;
}

/** One printed setting: its dotted key, its value (masked) and where it came from. */
interface Setting {
  readonly key: string;
  readonly value: unknown;
  readonly from: string;
}

function settings(options: { config?: string; store?: string }): Setting[] {
  const cli = loadCliConfig(options);
  const rows: Setting[] = [
    {
      key: "(project file)",
      value: cli.project?.file ?? null,
      from: cli.project?.via ?? "none found",
    },
    { key: "(user file)", value: cli.userFile ?? null, from: cli.userFile ? "found" : "none" },
    { key: "store", value: redactStoreUrl(cli.storeUrl), from: cli.storeFrom },
    {
      key: "workspace",
      value: cli.workspace,
      from:
        cli.origins.get("workspace") ??
        (cli.project ? "default: docket.yaml's folder" : "default: the working directory"),
    },
  ];
  for (const [key, value] of Object.entries(cli.config?.sections ?? {})) {
    if (key === "store" || key === "workspace") continue;
    const record = value !== null && typeof value === "object" && !Array.isArray(value);
    const perEntry = key === "approvers" || key === "mcp";
    if (perEntry && record) {
      const entries =
        key === "mcp" ? ((value as { servers?: object }).servers ?? {}) : (value as object);
      const prefix = key === "mcp" ? "mcp.servers" : key;
      for (const [name, entry] of Object.entries(entries)) {
        const path = `${prefix}.${name}`;
        rows.push({ key: path, value: masked(entry, name), from: cli.origins.get(path) ?? "?" });
      }
      continue;
    }
    rows.push({ key, value: masked(value, key), from: cli.origins.get(key) ?? "?" });
  }
  const prompt = buildSystemPrompt({
    workspace: cli.workspace,
    configured: cli.runtime.systemPrompt,
  });
  if (cli.runtime.systemPrompt === undefined)
    rows.push({ key: "system_prompt", value: "(docket's own)", from: "default" });
  rows.push({
    key: "(instructions)",
    value: prompt.instructions?.file ?? null,
    from: prompt.skipped ?? (prompt.instructions ? "appended to system_prompt" : "none found"),
  });
  return rows;
}

/**
 * Add `docket config`: the effective configuration (project file over user file, flags and
 * environment over both), each value with the file and line or the flag it came from, secrets
 * masked.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerConfigCommand(program);
 * await program.parseAsync(["config", "--json"], { from: "user" });
 * ```
 */
export function registerConfigCommand(program: Command): void {
  program
    .command("config")
    .description("Print the effective configuration and where each value came from.")
    .option("--config <file>", CONFIG_FLAG_HELP)
    .option("--store <url>", STORE_FLAG_HELP)
    .option("--json", "one JSON object per setting: { key, value, from }")
    .action((options: { config?: string; store?: string; json?: boolean }) => {
      const rows = settings(options);
      if (options.json) {
        for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
        return;
      }
      const width = Math.max(...rows.map((row) => row.key.length));
      for (const row of rows) {
        // Nothing there (no user file, no AGENTS.md): where it was looked for says it all.
        if (row.value === null) {
          process.stdout.write(`${row.key.padEnd(width)}  (${row.from})\n`);
          continue;
        }
        // A value of several lines (system_prompt) stays on its row, quoted.
        const text =
          typeof row.value === "string" && !row.value.includes("\n")
            ? row.value
            : JSON.stringify(row.value);
        process.stdout.write(`${row.key.padEnd(width)}  ${text}  (${row.from})\n`);
      }
    });
}
