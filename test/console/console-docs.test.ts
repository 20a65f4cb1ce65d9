import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { startDocketServe } from "../support/start-docket-serve.js";

// docs/console.md's configuration and command, run as a user would: `docket serve` in its own
// process serves the API and the console on one port, and bob signs in with his token.

const root = fileURLToPath(new URL("../..", import.meta.url));
const doc = readFileSync(join(root, "docs/console.md"), "utf8");
const block = (lang: string) =>
  // The info string may carry test/docs-snippets.test.ts's markers after the language.
  new RegExp(`\`\`\`${lang}(?: [^\\n]*)?\\n([\\s\\S]*?)\`\`\``).exec(doc)?.[1] ?? "";

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("docs/console.md", () => {
  it("starts docket serve with the documented config, and bob signs in to the console", async () => {
    dir = await mkdtemp(join(tmpdir(), "docket-console-docs-"));
    const config = join(dir, "docket.yaml");
    await writeFile(config, block("yaml"));
    const storeUrl = `sqlite:${join(dir, "docket.db")}`;
    await (await openStore(storeUrl)).close();
    const documented = block("sh");
    expect(documented).toContain("docket serve --port 7420");
    const token = "bobs-documented-token-01";
    const served = await startDocketServe(
      ["--config", config, "--store", storeUrl, "--port", "0"],
      {
        cwd: dir,
        env: { BOB_TOKEN: token, HOME: dir, XDG_CONFIG_HOME: join(dir, ".config") },
      },
    );
    const { url } = served;
    const stderr = served.stderr();
    try {
      // The line has the shape the docs show.
      const shown = /# (docket serve: .*)$/m.exec(documented)?.[1] ?? "";
      expect(stderr.trim().replace(/:\d+\//g, ":7420/")).toBe(shown);

      const signIn = await fetch(`${url}/console/sign-in`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: url },
        body: new URLSearchParams({ token }).toString(),
      });
      expect(signIn.status).toBe(303);
      const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      const inbox = await fetch(`${url}/console/`, { headers: { cookie } });
      expect(inbox.status).toBe(200);
      expect(await inbox.text()).toContain("Nothing is waiting for a decision.");
      const api = await fetch(`${url}/approvals`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(await api.json()).toMatchObject({ approvals: [], total: 0 });
    } finally {
      expect(await served.stop()).toBe(0);
    }
  }, 60_000);
});
