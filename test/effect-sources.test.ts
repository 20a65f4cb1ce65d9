import { describe, expect, it } from "vitest";
import { type Finding, mayAct, scanTree } from "./support/effect-scan.js";

/**
 * The half of the one-path rule that dependency-cruiser cannot check. Every module in src/ that
 * acts on the world (child processes, signals, sockets, HTTP, fetch, DNS, file writes, an MCP
 * tools/call, a database or model client) must be an effect or handler module, which the import
 * rules make reachable only through a sealed handler, or be listed here with the reason it acts
 * for docket itself rather than for a tool call. Every way of loading code the import rules
 * cannot see (createRequire, require, computed import(), process.binding, worker threads, vm)
 * must be listed here too. A stale entry fails as well, so the list says what is true.
 */
const ALLOWED: Readonly<Record<string, string>> = {
  "approval/approval-notifier.ts":
    "docket serve --notify posts a notice of a new approval request (tool name and a console link, never the arguments) to the webhook the operator configured; no tool reaches it",
  "sandbox/network/network-proxy.ts":
    "the sandbox network's filtering proxy (ADR 0037): docket's own server for a sandboxed command's connections, each decided by policy and recorded; runs nothing a model asked for",
  "sandbox/network/relay-connection.ts":
    "relays a connection the network policy allowed to the address the proxy itself resolved and checked; opens nothing the policy did not decide",
  "sandbox/network/resolve-destination.ts":
    "the proxy resolves a requested host name itself, so a private or link-local address is refused whatever the name says",
  "sandbox/network/sandbox-listener.ts":
    "accepts the sandbox's connections on the listening socket its bootstrap handed docket; the proxy decides each one",
  "gateway/answer-deep-message.ts":
    "answers a gateway tools/call whose arguments are nested too deep with a refusal result, recorded; it calls no tool",
  "gateway/verify-access-token.ts":
    "fetches the configured authorization server's metadata and JWKS to check bearer tokens (OAuth resource server, ADR 0039); no tool reaches it",
  "hook/contained-exec.ts":
    "`docket hook exec`: runs the command a hooked host was already answered for by docket's checkpoint (its PreToolUse answer rewrote the command to this), inside the sandbox run_command uses; it decides nothing and runs nothing the checkpoint did not answer (ADR 0043)",
  "hook/hook-socket.ts":
    "makes the private folder (0700, this user's own) for a hook daemon's socket when the project's path is too long for one; no tool reaches it, and the hook guard keeps the folder from every tool (ADR 0104)",
  "hook/hook-test.ts":
    "`docket hook test HOST`, run by the operator: starts the installed host headless against docket's own probe model in a temporary project, which it removes afterwards",
  "hook/probe/probe-server.ts":
    "the local fake model (127.0.0.1) that `docket hook test` points the host at; no tool reaches it",
  "shared/import-package.ts":
    "loads docket's own dependencies and optional peers by a name held in a variable, so a bundler leaves them in node_modules; every caller passes a fixed package name (pg, web-tree-sitter, the model providers, the OpenTelemetry SDK)",
  "cli/cli-loader.ts":
    "lends the CLI's CommonJS bundle its own import(), which the bundle uses only through import-package.ts (fixed package names, as above): vm.Script has no import() of its own (ADR 0087)",
  "store/sqlite/sqlite-file-guard.ts":
    "saves the contents of docket's own store beside it (0600, never overwriting) when its file was removed or replaced under a running process; no tool reaches it",
  "mcp/tool-pins.ts":
    "writes docket.lock.json, docket's own pin file, when a person pins or accepts outside tools (docket mcp pin); no tool reaches it",
  "audit/audit-key.ts":
    "creates docket's own audit signing key (0600, outside the workspace) on init or first use; no tool reaches it",
  "audit/digest-log.ts":
    "appends docket's signed attestations to its own digest log (a file or a separate PostgreSQL); runs nothing a model asked for",
  "cli/commands/audit-trail-commands.ts":
    "docket audit export writes the export file the operator named with --out",
  "sandbox/probe-sandbox.ts":
    "runs bwrap --version and an empty probe sandbox to learn whether a sandbox is available (docket doctor, start-up); runs nothing the model asked for",
  "sandbox/pids-cgroup.ts":
    "creates and removes the per-call pids cgroup that confines a command and writes its pids.max; signal 0 only asks whether a process is alive",
  "sandbox/move-aside-planted.ts":
    "renames aside docket's own files (docket.yaml, .docket/) that a sandboxed command or MCP server created while they could not be covered, so docket never loads them; acts only on docket's own paths",
  "sandbox/parked-launch.ts":
    "starts the next call's launcher ahead of time (ADR 0055): a bash that joins a fresh pids cgroup and waits for the bwrap arguments run_command writes to a private 0700 folder; it runs only what run-command.handler.ts hands it for a call the checkpoint answered, and nothing if docket exits",
  "sandbox/network/visible-node.ts":
    "links or copies docket's own Node.js binary into a private 0700 folder when the sandbox cannot reach it where it is installed, so the network bootstrap can run; it touches no path a tool names",
  "sandbox/sandbox-launch.ts":
    "prepares a confined launch (scratch directory, covers over hidden paths, the cgroup, docket's own folders made 0700 when missing so they can be hidden) and returns the plan; the spawn stays in run-command.handler.ts and process-transport.ts",
  "approval/approvals-http-server.ts":
    "docket serve: the approvals API's own HTTP server, which approvers call; it runs no tool",
  "builtin/workspace/verified-handle.ts":
    "opens workspace files and directories for the file tools; its one computed open is given O_RDONLY flags by both callers",
  "cli/always-allow-rule.ts":
    "writes the allow rule the operator chose at the approval prompt (\"always allow\") into the project's docket.yaml; the agent's tools cannot reach it (docket.yaml is self-protected)",
  "cli/crash-log.ts":
    "writes docket's own log of an unexpected error (0600, in the OS temp dir) so the terminal shows one line; no tool reaches it",
  "cli/commands/chat-history.ts":
    "docket chat saves its own input history in .docket/chat-history (0600), one of docket's own files no tool reaches",
  "cli/commands/demo-command.ts":
    "docket demo makes and removes its own scratch directory for the demo's orders database",
  "cli/commands/init-command.ts":
    "docket init writes the docket.yaml the user asked it to write, and adds .docket/ to the .gitignore beside it",
  "mcp/create-upstream-transport.ts":
    "connects to the MCP servers the user configured (HTTP): docket's start-up, not a tool call; tool calls go through call-upstream-tool.effect.ts",
  "mcp/process-transport.ts":
    "starts the stdio MCP servers the user configured: docket's start-up, not a tool call; tool calls go through call-upstream-tool.effect.ts",
  "mcp/serve-gateway-http.ts":
    "docket gateway's own HTTP server; every call it serves goes through the checkpoint",
  "mcp/stop-process-group.ts": "stops the process groups of docket's own MCP server processes",
  "policy/shell/bash-grammar.ts":
    "createRequire only resolves the path of tree-sitter-bash's .wasm file; no module is loaded through it",
  "store/call-owner.ts":
    "signal 0 only asks whether the process that holds a call is alive; nothing is sent",
  "store/sqlite/open-sqlite-database.ts":
    "the store: opens the SQLite file and creates its directory",
  "store/sqlite/wal-checkpointer.ts":
    "runs SQLite WAL checkpoints in a worker thread whose code is a fixed string in this file, on its own node:sqlite connection to docket's store",
  "store/sqlite/node-sqlite-database.ts":
    "the store's connection: createRequire loads Node's own node:sqlite (a fixed built-in name) for docket's SQLite file, and VACUUM INTO writes its image to a temporary file when Node has no serialize (the file guard's rescue)",
  "hook/serve-hooks.ts":
    "docket hook serve's own Unix socket (0600, in docket's state folder), whose every request goes through the checkpoint's decide-only pass",
  "hook/hook-client.ts":
    "the thin hook client connects to docket hook serve's own socket; a failure is a deny",
  "hook/start-hook-daemon.ts":
    "starts docket hook serve on a hook's first use: makes docket's own state folder (0700) for its socket and appends the daemon's log there (0600)",
  "hook/install-hook.ts":
    "docket hook install/uninstall writes the host's settings file (or opencode's plugin) the operator confirmed after seeing the diff; no tool reaches it",
  "config/yaml-parse-cache.ts":
    "writes docket's own cache of parsed YAML files (0600, in docket's user config folder, which every tool is refused); no tool reaches it",
  "tool/compile-json-schema.ts":
    "createRequire loads ajv and ajv-formats (fixed names) on the first JSON Schema compiled; nothing else is loaded through it",
  "config/yaml-source.ts":
    "createRequire loads the yaml package (a fixed name) only when a file is not in the parse cache; nothing else is loaded through it",
  "cli/code-cache-entry.ts":
    "writes docket's own V8 code cache of its CLI bundle (0600 in a 0700 folder in docket's user config folder, which every tool is refused and the sandbox hides); no tool reaches it",
  "cli/load-cached-script.ts":
    "vm.Script compiles docket's own CommonJS bundle (a fixed file beside the CLI) with its code cache, and createRequire gives that bundle its require; nothing a tool names is loaded",
};

const line = (f: Finding) => `${f.kind} ${f.file}: ${f.what}`;

describe("the source scan", () => {
  it("finds nothing in src/ outside effect and handler modules that is not allowed with a reason", async () => {
    const findings = await scanTree("src");
    const unexplained = findings.filter(
      (f) => ALLOWED[f.file] === undefined && (f.kind === "loader" || !mayAct(f.file)),
    );
    expect(unexplained.map(line)).toEqual([]);
    const stale = Object.keys(ALLOWED).filter((file) => !findings.some((f) => f.file === file));
    expect(stale).toEqual([]);
  });

  it("finds the effects it is meant to in docket's own effect modules", async () => {
    const files = new Set((await scanTree("src")).map((f) => f.file));
    for (const file of [
      "builtin/web/pinned-request.effect.ts",
      "http-target/http-target.effect.ts",
      "builtin/workspace/atomic-write.effect.ts",
      "builtin/shell/process-group.effect.ts",
      "builtin/shell/run-command.handler.ts",
      "mcp/call-upstream-tool.effect.ts",
    ]) {
      expect(files, file).toContain(file);
    }
  });

  it("catches createRequire, require, computed import(), process.binding, process.getBuiltinModule and acting modules outside effect modules (fixtures)", async () => {
    const found = (await scanTree("test/fixtures/import-rules/src")).map(line);
    expect(found).toEqual([
      "effect builtin/web/pinned-request.effect.ts: imports request from node:https",
      "effect loop/sneaky-acts.ts: imports node:child_process",
      "effect loop/sneaky-acts.ts: imports request from node:http",
      "effect loop/sneaky-acts.ts: calls fetch()",
      "effect loop/sneaky-acts.ts: calls fs.writeFileSync()",
      'effect loop/sneaky-acts.ts: opens a file with flags that may write (open("/tmp/y", "w"))',
      "effect loop/sneaky-acts.ts: signals a process (process.kill)",
      "effect loop/sneaky-acts.ts: calls an MCP tool (callTool)",
      "effect loop/sneaky-acts.ts: imports node:child_process",
      "effect loop/sneaky-acts.ts: imports rmSync from node:fs",
      "loader loop/sneaky-computed.ts: import() of a computed specifier (name)",
      "loader loop/sneaky-computed.ts: require(name)",
      "loader loop/sneaky-computed.ts: binding on (process as unknown as { binding(name: s…",
      "loader loop/sneaky-computed.ts: dlopen on (process as unknown as Record<string, (n…",
      "loader loop/sneaky-computed.ts: new Function(): code built at run time",
      "loader loop/sneaky-computed.ts: process.getBuiltinModule of a computed name (name)",
      "loader loop/sneaky-computed.ts: eval(): code built at run time",
      "loader loop/sneaky-require.ts: imports createRequire from node:module",
      "loader loop/sneaky-require.ts: uses createRequire",
    ]);
  });
});
