import { beforeAll, describe, expect, it } from "vitest";
import { invokesDocket } from "./invokes-docket.js";
import { loadShellParser, type ShellParser } from "./shell/shell-parser.js";

let parser: ShellParser;
beforeAll(async () => {
  parser = await loadShellParser();
});
const runs = (script: string, cliPaths: string[] = []) =>
  invokesDocket(parser.analyse(script), { workspace: "/ws", cliPaths });

describe("invokesDocket", () => {
  it("finds docket at any depth and through runners and wrappers", () => {
    for (const script of [
      "docket approvals approve apr_1 --as me",
      "/usr/local/bin/docket approvals list",
      "DOCKET_TOKEN=x docket approvals list",
      "npx docket approvals list",
      "npx -y docket@1.2.3 approvals list",
      "pnpm exec docket approvals list",
      "sudo -u root docket approvals list",
      "env -i docket approvals list",
      "timeout 5 docket approvals list",
      "nohup docket serve &",
      "xargs docket approvals approve < ids.txt",
      'script -qc "docket approvals approve x --as me" /dev/null',
      "bash -c 'docket approvals list'",
      "echo $(docket approvals list)",
      "node node_modules/docket/dist/src/cli/main.js approvals list",
      "./node_modules/.bin/docket approvals list",
      "DOCKET.cmd approvals list",
    ]) {
      expect(runs(script), script).toBeDefined();
    }
    expect(
      runs("node /opt/docket/dist/src/cli/main.js approvals", ["/opt/docket/dist/src/cli"]),
    ).toMatchObject({ word: "/opt/docket/dist/src/cli/main.js" });
  });

  it("leaves commands that only mention docket alone", () => {
    for (const script of [
      "grep -rn docket src",
      "git commit -m 'docket: fix'",
      "cat docs/docket.md",
      "ls docket-notes",
      "npm test",
    ]) {
      expect(runs(script), script).toBeUndefined();
    }
  });
});
