import { existsSync } from "node:fs";
import { link, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinTools } from "../src/builtin/builtin-tools.js";
import { createCheckpoint } from "../src/checkpoint/create-checkpoint.js";
import type { ToolResult } from "../src/checkpoint/tool-result.js";
import { createPolicyEngine } from "../src/policy/policy-engine.js";
import { runtimeOwnFiles } from "../src/protect/runtime-own-files.js";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/store.js";

// The file tools guard docket's own files themselves, under a policy that allows everything:
// reads, writes and edits are refused in words; listings and searches leave them out, and leave
// out the files a deny path rule protects (a `.env`'s lines never reach the model).

let ws: string;
let home: string;
let store: Store;
let dispatch: (name: string, args: unknown) => Promise<ToolResult>;

beforeAll(async () => {
  ws = await realpath(await mkdtemp(join(tmpdir(), "docket-guard-")));
  home = await realpath(await mkdtemp(join(tmpdir(), "docket-guard-home-")));
  await mkdir(join(ws, ".docket"));
  await mkdir(join(ws, "src"));
  await mkdir(join(home, ".config", "docket"), { recursive: true });
  await writeFile(join(ws, ".docket", "docket.db"), "SECRET store bytes\n");
  await writeFile(join(ws, ".env"), "SECRET=hunter2\n");
  await writeFile(join(ws, "src", "app.ts"), "const SECRET = process.env.SECRET;\n");
  await writeFile(join(home, ".config", "docket", "policy.yaml"), "policy:\n  rules: []\n");
  await symlink(join(ws, ".docket", "docket.db"), join(ws, "src", "link.txt"));
  await link(join(ws, ".docket", "docket.db"), join(ws, "src", "hard.txt"));
  store = await openStore(`sqlite:${join(home, "audit.db")}`);
  const own = runtimeOwnFiles({
    storeUrl: "sqlite:.docket/docket.db",
    workspace: ws,
    cwd: ws,
    env: { HOME: home },
  });
  const rules = await createPolicyEngine({
    layers: [{ name: "project", rules: [{ decision: "deny", tool: "*", path: "**/.env" }] }],
    workspace: ws,
    home,
  });
  const tools = builtinTools({
    workspace: ws,
    guard: {
      own: (absolute) => own.find(absolute)?.what,
      secret: (absolute) => rules.deniedPath(absolute)?.reason,
    },
  });
  // The policy allows everything: what follows is the tools' own guard.
  const checkpoint = createCheckpoint({ tools, store, policy: () => ({ decision: "allow" }) });
  let n = 0;
  dispatch = (name, args) =>
    checkpoint.dispatch({ id: `c${++n}`, name, arguments: JSON.stringify(args) });
});

afterAll(async () => {
  await store?.close();
  await rm(ws, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

const refusedAsOwn = (result: ToolResult) => {
  expect(result.status, JSON.stringify(result)).toBe("failed");
  expect((result as { message: string }).message).toContain("docket protects its own files");
};

describe("the file tools keep docket's own files out", () => {
  it("read_file refuses the store by symlink, hard link, `..` and case", async () => {
    for (const path of [
      ".docket/docket.db",
      "./.docket/../.docket/docket.db",
      ".DOCKET/docket.db",
      "src/link.txt",
      "src/hard.txt",
    ]) {
      const result = await dispatch("read_file", { path });
      if (path === ".DOCKET/docket.db") {
        // Linux is case-sensitive: that file does not exist, and nothing is shown either way.
        expect(result.status).toBe("failed");
        continue;
      }
      refusedAsOwn(result);
    }
  });

  it("write_file cannot create docket.yaml; edit_file cannot touch the store", async () => {
    refusedAsOwn(await dispatch("write_file", { path: "docket.yaml", content: "policy: {}\n" }));
    expect(existsSync(join(ws, "docket.yaml"))).toBe(false);
    refusedAsOwn(
      await dispatch("write_file", { path: "src/../.docket/docket.db-wal", content: "" }),
    );
    refusedAsOwn(
      await dispatch("edit_file", { path: "src/hard.txt", old_string: "SECRET", new_string: "x" }),
    );
    expect(await readFile(join(ws, ".docket", "docket.db"), "utf8")).toBe("SECRET store bytes\n");
  });

  it("list_files leaves out docket's files and deny-protected ones, and says so", async () => {
    const result = await dispatch("list_files", { path: "." });
    const text = (result as { output: string }).output;
    expect(text).toContain("src/app.ts");
    expect(text).not.toContain("docket.db");
    // A symbolic link and a hard link to the store are the store.
    expect(text).not.toContain("link.txt");
    expect(text).not.toContain("hard.txt");
    expect(text).not.toMatch(/^\.env$/m);
    expect(text).toContain("(left out 3 of docket's own files and 1 file(s) a deny rule protects");
    refusedAsOwn(await dispatch("list_files", { path: ".docket" }));
  });

  it("search_files never shows a line of the store or of .env", async () => {
    const result = await dispatch("search_files", { pattern: "SECRET", path: "." });
    const text = (result as { output: string }).output;
    expect(text).toContain("src/app.ts:1:");
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("store bytes");
    expect(text).toMatch(/left out .*docket's own files and 1 file\(s\) a deny rule protects/);
    const direct = await dispatch("search_files", { pattern: "SECRET", path: ".env" });
    expect(JSON.stringify(direct)).not.toContain("hunter2");
    refusedAsOwn(await dispatch("search_files", { pattern: "SECRET", path: "src/hard.txt" }));
  });
});

describe("builtinTools without a guard (library use)", () => {
  it("still keeps .docket/ and docket.yaml out", async () => {
    const checkpoint = createCheckpoint({
      tools: builtinTools({ workspace: ws }),
      store,
      policy: () => ({ decision: "allow" }),
    });
    const run = (name: string, args: unknown) =>
      checkpoint.dispatch({ id: `lib-${name}`, name, arguments: JSON.stringify(args) });
    refusedAsOwn(await run("read_file", { path: ".docket/docket.db" }));
    refusedAsOwn(await run("write_file", { path: "docket.yaml", content: "x" }));
    expect(existsSync(join(ws, "docket.yaml"))).toBe(false);
  });

  it("keeps the user config folder of when the tools were made, after the host changes its environment", async () => {
    const before = process.env.XDG_CONFIG_HOME;
    const config = join(ws, "config-of-then");
    await mkdir(join(config, "docket"), { recursive: true });
    process.env.XDG_CONFIG_HOME = config;
    let tools: ReturnType<typeof builtinTools>;
    try {
      tools = builtinTools({ workspace: ws });
    } finally {
      // The host moves on before the first call: the guard still reads the environment of then.
      process.env.XDG_CONFIG_HOME = join(ws, "config-of-now");
    }
    try {
      const checkpoint = createCheckpoint({ tools, store, policy: () => ({ decision: "allow" }) });
      refusedAsOwn(
        await checkpoint.dispatch({
          id: "lib-env",
          name: "write_file",
          arguments: JSON.stringify({ path: "config-of-then/docket/policy.yaml", content: "x" }),
        }),
      );
      expect(existsSync(join(config, "docket", "policy.yaml"))).toBe(false);
    } finally {
      process.env.XDG_CONFIG_HOME = before;
    }
  });
});
