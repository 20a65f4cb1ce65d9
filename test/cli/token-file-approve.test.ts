import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runDocket } from "../support/run-docket.js";
import { suspendedWrite } from "./support/suspended-write.js";

// An approver's token in a file only its owner reads (DOCKET_TOKEN_FILE), so the token itself
// need not sit in any environment a coding agent's commands inherit.
describe("docket approvals approve with DOCKET_TOKEN_FILE", () => {
  it("refuses a token file others can read, then decides with it once it is 0600", async () => {
    const { dir, env, id, token } = await suspendedWrite("bob");
    const file = join(dir, "bob.token");
    writeFileSync(file, `${token}\n`);
    chmodSync(file, 0o644);
    const withFile = { ...env, DOCKET_TOKEN: "", DOCKET_TOKEN_FILE: file };
    const open = await runDocket(["approvals", "approve", id], { cwd: dir, env: withFile });
    expect(open.code).not.toBe(0);
    expect(open.stderr).toContain(`can be read by others (mode 0644): chmod 600 ${file}`);
    expect(open.stderr).not.toMatch(/\n\s+at /);

    chmodSync(file, 0o600);
    const approved = await runDocket(["approvals", "approve", id], { cwd: dir, env: withFile });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toBe(`${id} approved by bob\n`);
  });
});
