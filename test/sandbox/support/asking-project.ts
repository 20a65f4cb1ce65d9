/**
 * A docket.yaml whose `run_command` is allowed and whose sandbox reaches the given names through
 * the proxy only (`allow`, `ask`, each at 127.0.0.1), with bob (a lead whose token is in
 * BOB_TOKEN) the approver of every ask.
 */
export function askingProjectYaml({
  allow = [],
  ask = [],
}: {
  allow?: readonly string[];
  ask?: readonly string[];
}): string {
  const hosts = [...allow, ...ask].map((host) => `${host}: 127.0.0.1`).join(", ");
  return [
    "principal: agent",
    "approvers:",
    "  bob: { roles: [lead], token_env: BOB_TOKEN }",
    "approvals:",
    '  default_approvers: ["role:lead"]',
    "policy:",
    "  rules:",
    "    - { decision: allow, tool: run_command, reason: the sandbox confines it }",
    "sandbox:",
    "  network:",
    ...(allow.length > 0 ? [`    allow: ${JSON.stringify(allow)}`] : []),
    ...(ask.length > 0 ? [`    ask: ${JSON.stringify(ask)}`] : []),
    "    ask_timeout: 60s",
    `    hosts: { ${hosts} }`,
    "",
  ].join("\n");
}
