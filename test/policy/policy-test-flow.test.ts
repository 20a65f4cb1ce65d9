import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPolicyCli } from "./support/run-policy-cli.js";

// `docket policy test` cases that state a flow: the labels the session holds before the call.
let dir: string;
let home: string;
const cli = (args: string[]) => runPolicyCli(args, { cwd: dir, home });

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "docket-policy-flow-"));
  home = path.join(dir, "home");
  mkdirSync(home);
  writeFileSync(
    path.join(dir, "docket.yaml"),
    `flow:
  secrets: mask
  sends: { send_email: true }
policy:
  rules:
    - { id: web, tool: fetch_url, decision: allow }
    - id: no-private-mail
      tool: send_email
      decision: deny
      when: "'private' in session.labels && call.sends"
`,
  );
  writeFileSync(
    path.join(dir, "cases.yaml"),
    `cases:
  - { name: clean, tool: fetch_url, args: { url: "https://example.com/" }, expect: allow }
  - { name: page only, tool: fetch_url, args: { url: "https://example.com/" }, labels: [untrusted], expect: allow }
  - { name: the flow, tool: fetch_url, args: { url: "https://example.com/" }, labels: [private, untrusted], expect: ask }
  - { name: a key out, tool: fetch_url, args: { url: "https://example.com/?k=ghp_abcdefghijklmnopqrstuvwxyz0123456789" }, expect: deny }
  - { name: cel, tool: send_email, args: { to: a }, labels: private, expect: deny }
  - { name: cel clean, tool: send_email, args: { to: a }, expect: ask }
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docket policy test with labels", () => {
  it("judges the flow a case states, with the rule that decided", async () => {
    const result = await cli(["policy", "test", "cases.yaml", "--tool", "send_email:writes"]);
    expect(result.stderr, result.stdout).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ok {3}ask {3}the flow: fetch_url .*\[docket:flow docket\]/m);
    expect(result.stdout).toMatch(/^ok {3}deny {2}a key out: .*\[docket:secret-in-arguments/m);
    expect(result.stdout).toMatch(/^ok {3}deny {2}cel: send_email .*\[no-private-mail project\]/m);
    expect(result.stdout).toContain("6 cases: 6 passed, 0 failed");
  });

  it("refuses a label it does not know, with the file and line", async () => {
    writeFileSync(
      path.join(dir, "bad-labels.yaml"),
      "cases:\n  - { tool: fetch_url, args: { url: x }, labels: [secret] }\n",
    );
    const result = await cli(["policy", "test", "bad-labels.yaml"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "bad-labels.yaml:2: cases[0].labels: expected private, untrusted",
    );
  });
});
