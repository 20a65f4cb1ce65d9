/** A stdio MCP server to run sandboxed, whose network takes the lists instead of `sandbox`. */
export interface AskingServer {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The tool of it the policy allows. */
  readonly tool: string;
}

/**
 * A docket.yaml whose `run_command` (or, with `server`, that MCP server's `tool`) is allowed and
 * whose sandbox (or that server's) reaches the given names through the proxy only (`allow`,
 * `ask`, each at 127.0.0.1), with bob (a lead whose token is in BOB_TOKEN) the approver of every
 * ask.
 */
export function askingProjectYaml({
  allow = [],
  ask = [],
  server,
}: {
  allow?: readonly string[];
  ask?: readonly string[];
  server?: AskingServer;
}): string {
  const hosts = [...allow, ...ask].map((host) => `${host}: 127.0.0.1`).join(", ");
  const indent = server ? "      " : "";
  const network = [
    `${indent}  network:`,
    ...(allow.length > 0 ? [`${indent}    allow: ${JSON.stringify(allow)}`] : []),
    ...(ask.length > 0 ? [`${indent}    ask: ${JSON.stringify(ask)}`] : []),
    `${indent}    ask_timeout: 60s`,
    `${indent}    hosts: { ${hosts} }`,
  ];
  return [
    "principal: agent",
    "approvers:",
    "  bob: { roles: [lead], token_env: BOB_TOKEN }",
    "approvals:",
    '  default_approvers: ["role:lead"]',
    "policy:",
    "  rules:",
    server
      ? `    - { decision: allow, tool: ${server.tool}, reason: a read }`
      : "    - { decision: allow, tool: run_command, reason: the sandbox confines it }",
    ...(server
      ? [
          "mcp:",
          "  servers:",
          `    ${server.name}:`,
          `      command: ${JSON.stringify(server.command)}`,
          `      args: ${JSON.stringify(server.args)}`,
          "      sandbox:",
        ]
      : ["sandbox:"]),
    ...network,
    "",
  ].join("\n");
}
