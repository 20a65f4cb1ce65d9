import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Command } from "commander";
import { loadAuditKey, resolveAuditPaths } from "../../audit/audit-key.js";
import { DOCKET_IGNORE_LINE, withDocketIgnored } from "./docket-ignore.js";
import { detectProjectChecks } from "./project-checks.js";

/**
 * The commented docket.yaml `docket init` writes: safe defaults, every section explained, and
 * an allow rule for the project's own checks (`detectProjectChecks`) when any were found.
 *
 * @example
 * ```ts
 * initialConfig({ checks: ["npm test *", "npx tsc --noEmit *"] }).includes("id: project-checks"); // true
 * ```
 */
export function initialConfig(options: { readonly checks?: readonly string[] } = {}): string {
  return `# docket.yaml: how docket runs your agent. Reference: docs/policy.md, docs/approvals.md.

# The model. anthropic:MODEL, openai:MODEL, ollama:MODEL, openai-compatible:MODEL
# (with base_url), or scripted:FILE for offline runs. Keys come from ANTHROPIC_API_KEY /
# OPENAI_API_KEY.
# model: anthropic:claude-sonnet-4-5

# The agent's own identity. It can never approve its own calls.
principal: agent

# Where the tools may work. Every path must resolve inside it.
workspace: .

# run_command (and stdio MCP servers with sandbox: true) run in a bubblewrap sandbox: their own
# processes and /proc, a read-only system, the workspace writable, docket's own files and the
# secrets below hidden, no network, an allow-listed environment. auto: where no sandbox is
# available, every command asks a person first; required: refuse commands then; off: unconfined
# (an agent with a shell then has your powers over docket's own store). Check: docket doctor.
sandbox:
  mode: auto
  network: none         # none | loopback | all | the host names below
  # Or the outside by host name, through docket's proxy; each connection decided and audited,
  # anything unlisted refused, private addresses refused whatever a name resolves to:
  # network:
  #   allow: [registry.npmjs.org, github.com, codeload.github.com]
  #   ask: ["*.githubusercontent.com"]   # held until a person answers (or ask_timeout)
  #   deny: [gist.github.com]
  #   ask_timeout: 60s
  limits: { processes: 512, memory_mb: 8192 }

# Sessions, transcripts, the audit trail and approvals. PostgreSQL when several processes share.
store: sqlite:.docket/docket.db

limits:
  max_turns: 50
  max_tool_calls_per_run: 200
  max_tool_calls_per_batch: 32
  max_run: 30m

# Who may answer an approval. Without a token: local use on this machine only.
# With one: token_env names a variable holding it (only its SHA-256 is kept), or token_sha256.
approvers:
  me: { roles: [lead] }

approvals:
  mode: wait            # wait: block until decided; suspend: save the run, resume later
  expires: 15m
  default_approvers: ["role:lead"]

# Untrusted content. Results of fetch_url and of outside MCP servers (unless trusted: true) are
# text from the open world: they reach the model labelled as data, and once one has arrived the
# session is tainted: a write a rule would allow is asked instead, and the prompt names what came
# before it ("after fetch_url https://… (call c4)"). Rules can read run.tainted. Outside tools are
# pinned in docket.lock.json (docket mcp pin). See docs/untrusted-content.md.
taint:
  scope: session        # session (its transcript keeps the text) | run
  writes: ask           # ask: writes after untrusted content need a person | allow: rules decide

# Information flow. Results holding a credential are masked before the model sees them, and the
# session is labelled private (so are reads of the sensitive paths and tools below). A session
# holding private data and untrusted content may not send data out (fetch_url, an unsandboxed
# command, outside MCP tools, tools declared sends: true) without a person. See
# docs/information-flow.md.
flow:
  secrets: mask         # mask | refuse (withhold the result) | off
  outward: ask          # ask | deny
  sensitive: ["**/.env", "**/*.pem", "~/.ssh/**"]

policy:
  # When no rule matches. A write is never allowed by default.
  defaults: { reads: allow, writes: ask }
  # Each rule's id names it in the audit trail and in \`docket policy check\`; its reason is what
  # the model and the approver read.
  rules:
    - id: no-destructive-shell
      decision: deny
      tool: run_command
      command: ["rm *", "git push *", "git reset --hard *", "sudo *", "curl *", "wget *"]
      reason: "denied: deleting, publishing and downloading are not allowed here"
    # Name the git subcommands you allow: "git *" would also allow git rm, git clean -fdx
    # (deletes untracked files) and git push. Safer: "git status", "git log *", "git diff *",
    # "git show *"; put "git push *", "git clean *", "git config *" behind an ask rule.
    - id: safe-shell
      decision: allow
      tool: run_command
      command: ["ls *", "cat *", "grep *", "git status", "git diff *", "git log *"]
      reason: "allowed without asking: listing, reading, git status, diff and log"
${projectChecksRule(options.checks ?? [])}    # Every tool, the shell included: \`cat .env\`, \`grep KEY .env\`, \`< .env\` are denied too,
    # and list_files / search_files leave these files out. An .npmrc holds registry tokens, and
    # its node-options would run code in the next \`npx docket\` started from that folder.
    - id: no-secrets
      decision: deny
      tool: "*"
      path: ["**/.env", "**/.env.*", "~/.ssh/**", "**/*.pem", "**/*.key", "~/.aws/**", "~/.netrc", "~/.docker/config.json", "~/.config/gh/**", "**/.npmrc", "~/.npmrc", "~/.git-credentials"]
      reason: "denied: secrets stay secret"
    # Other processes (docket's own environment holds its API keys) and docket's own state.
    # docket refuses its own files to every tool anyway (docs/policy.md, "docket protects itself").
    - id: no-docket-state
      decision: deny
      tool: "*"
      path: ["/proc/**", ".docket/**", "docket.yaml"]
      reason: "denied: the agent may not read other processes or docket's own state"
    # Files your own tools run later, outside the sandbox and outside docket, with your rights:
    # hooks kept in the workspace (husky, lefthook, pre-commit), direnv's .envrc, editor tasks and
    # settings that run on open, dev containers. Every writing tool asks first, the shell too.
    # (docket refuses writes into .git, and to a hooks path or include git's config names, anyway.)
    - id: ask-workspace-hooks
      decision: ask
      tool: [write_file, edit_file, run_command]
      path: ["**/.husky/**", "**/.githooks/**", "**/.git-hooks/**", "**/.envrc", "**/.env.d/**", "**/.vscode/**", "**/.idea/**", "**/.zed/**", "**/.devcontainer/**", "**/.pre-commit-config.yaml", "**/lefthook.yml", "**/.lefthook.yml", "**/.nvim.lua", "**/.exrc", "**/.gitconfig", "**/mise.toml", "**/.mise.toml"]
      reason: "asks a person first: this file runs later outside the sandbox and outside docket (git hooks, .envrc, editor tasks)"
    - id: ask-web
      decision: ask
      tool: fetch_url
      reason: "asks a person first: the agent wants to read a web page"

# The audit trail's signing key and where signed attestations are copied (docs/audit.md).
# Defaults: ~/.config/docket/audit-key.pem (or DOCKET_AUDIT_KEY), digests beside it.
# audit:
#   key_file: ~/.config/docket/audit-key.pem
#   digests: postgres://audit@vault.internal/digests

# Tools of outside MCP servers, namespaced SERVER__TOOL, through the same checkpoint.
# mcp:
#   servers:
#     files: { command: npx, args: ["-y", "@modelcontextprotocol/server-filesystem", "."] }
`;
}

/** The file `docket init` writes in a folder with no project it recognises. */
export const INITIAL_CONFIG = initialConfig();

// Reads need no rule: run_command counts a script the analysis proves read-only as a read, and
// reads are allowed by default. Checks run project code, so they are allowed by name, and only
// because the sandbox contains them (docs/policy.md, "What docket init allows").
function projectChecksRule(checks: readonly string[]): string {
  const intro = `    # A command the analysis proves read-only (ls, rg, sed -n, git status/show/blame, jq …)
    # is a read, allowed by defaults.reads above; docs/policy.md lists what counts.
    # The project's own tests, build, type-check and lint, found by docket init: allowed because
    # run_command runs them in the sandbox, where they cannot reach docket's files or leave
    # hooks behind. Where no sandbox is available (mode auto) they are asked like every command.`;
  if (checks.length === 0) {
    return `${intro}
    # None was found here; name yours, e.g.:
    # - id: project-checks
    #   decision: allow
    #   tool: run_command
    #   command: ["npm test *", "npm run build *", "npx tsc --noEmit *"]
    #   reason: "allowed without asking: the project's own checks, run in the sandbox"
`;
  }
  return `${intro}
    - id: project-checks
      decision: allow
      tool: run_command
      command: ${JSON.stringify(checks).replaceAll('","', '", "')}
      reason: "allowed without asking: the project's own checks, run in the sandbox"
`;
}

/** The three commands `docket init` suggests next: check the sandbox, try the policy, run an agent. */
export const NEXT_COMMANDS = [
  ["docket doctor", "is the sandbox working on this machine?"],
  [`docket policy check run_command '{"command":"rm -rf /"}'`, "what the policy says about a call"],
  ['docket run "Summarise this project" --model anthropic:claude-sonnet-4-5', "run an agent"],
] as const;

/**
 * Add `docket init`: write a commented docket.yaml with safe defaults (never over an existing
 * one), add `.docket/` to the `.gitignore` beside it (creating it, never duplicating the line),
 * and print the next commands to try.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerInitCommand(program);
 * ```
 */
export function registerInitCommand(program: Command): void {
  program
    .command("init")
    .description("Write a commented docket.yaml with safe defaults.")
    .option("--file <path>", "where to write it", "docket.yaml")
    .option("--force", "overwrite an existing file")
    .action((options: { file: string; force?: boolean }) => {
      if (existsSync(options.file) && !options.force) {
        throw new Error(`${options.file} exists already; pass --force to overwrite it.`);
      }
      const checks = detectProjectChecks(dirname(options.file));
      writeFileSync(options.file, initialConfig({ checks }));
      const ignore = join(dirname(options.file), ".gitignore");
      const before = existsSync(ignore) ? readFileSync(ignore, "utf8") : undefined;
      const after = withDocketIgnored(before);
      if (after !== undefined) writeFileSync(ignore, after);
      const ignored =
        after === undefined
          ? `${ignore} already ignores ${DOCKET_IGNORE_LINE}`
          : before === undefined
            ? `created ${ignore} with ${DOCKET_IGNORE_LINE}`
            : `added ${DOCKET_IGNORE_LINE} to ${ignore}`;
      // The audit signing key lives outside the workspace and the store (docs/audit.md).
      const paths = resolveAuditPaths();
      const key = loadAuditKey(paths.keyFile, { create: true });
      const width = Math.max(...NEXT_COMMANDS.map(([command]) => command.length));
      process.stdout.write(
        [
          `Wrote ${options.file}; ${ignored} (the store and audit trail stay local).`,
          `Audit signing key ${key.created ? "created" : "found"}: ${paths.keyFile} (public key ${paths.publicKeyFile}, id ${key.keyId}).`,
          checks.length === 0
            ? "No test or build command found to allow; add yours to rule project-checks."
            : `Allowed in the sandbox (rule project-checks): ${checks.join(", ")}.`,
          "Next, try:",
          ...NEXT_COMMANDS.map(([command, why]) => `  ${command.padEnd(width)}  # ${why}`),
          "",
        ].join("\n"),
      );
    });
}
