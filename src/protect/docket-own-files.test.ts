import { link, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docketOwnFiles } from "./docket-own-files.js";
import { runtimeOwnFiles } from "./runtime-own-files.js";

let ws: string;
let home: string;

beforeAll(async () => {
  ws = await realpath(await mkdtemp(join(tmpdir(), "docket-own-")));
  home = await realpath(await mkdtemp(join(tmpdir(), "docket-own-home-")));
  await mkdir(join(ws, ".docket"));
  await mkdir(join(ws, "sub"));
  await writeFile(join(ws, ".docket", "docket.db"), "store");
  await writeFile(join(ws, "README.md"), "hello");
  await mkdir(join(home, ".config", "docket"), { recursive: true });
  await writeFile(join(home, ".config", "docket", "audit.key"), "key");
});

afterAll(async () => {
  await rm(ws, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

const own = () =>
  runtimeOwnFiles({
    storeUrl: "sqlite:.docket/docket.db",
    configFile: "docket.yaml",
    cwd: ws,
    env: { HOME: home },
    sections: {
      audit: { key_file: "~/keys/docket.key" },
      sandbox: { hide: ["secrets/", "*.kdbx"] },
    },
  });

describe("docket's own files", () => {
  it("covers the store and its siblings, .docket/, docket.yaml before it exists, the user config folder", () => {
    const files = own();
    expect(files.find(join(ws, ".docket", "docket.db"))?.what).toBe("the store");
    expect(files.find(join(ws, ".docket", "docket.db-wal"))?.what).toBe("the store");
    expect(files.find(join(ws, ".docket", "docket.db-journal"))?.what).toBe("the store");
    expect(files.find(join(ws, ".docket", "anything-else"))?.what).toBe("docket's state folder");
    expect(files.find(join(ws, "docket.yaml"))?.what).toBe("docket.yaml");
    expect(files.find(join(ws, "docket.lock.json"))?.what).toBe("the MCP tool pins");
    expect(files.find(join(home, ".config", "docket", "audit.key"))?.what).toBe(
      "docket's user config folder",
    );
    expect(files.find(join(home, "keys", "docket.key"))?.what).toBe("the audit key");
    expect(files.find(join(ws, "secrets", "a.txt"))?.what).toBe("hidden by sandbox.hide");
    expect(files.find(join(ws, "vault.kdbx"))?.what).toBe("hidden by sandbox.hide");
    expect(files.find(join(ws, "README.md"))).toBeUndefined();
    expect(files.find(join(ws, ".docketish"))).toBeUndefined();
    expect(files.find(join(ws, "sub", "docket.yaml"))).toBeUndefined();
  });

  it("covers .docket/ beside docket.yaml when docket runs elsewhere (the chat history lives there)", () => {
    const files = runtimeOwnFiles({
      configFile: join(ws, "docket.yaml"),
      workspace: join(ws, "sub"),
      cwd: join(ws, "sub"),
      env: { HOME: home },
    });
    expect(files.find(join(ws, ".docket", "chat-history"))?.what).toBe("docket's state folder");
  });

  it("sees through `..`, upper case, symbolic links and hard links", async () => {
    await symlink(join(ws, ".docket", "docket.db"), join(ws, "sub", "innocent.txt"));
    await symlink(join(ws, ".docket"), join(ws, "state-link"));
    await link(join(ws, ".docket", "docket.db"), join(ws, "sub", "hard.db"));
    const files = own();
    expect(files.find(join(ws, ".docket", "..", ".docket", "docket.db"))?.what).toBe("the store");
    expect(files.find(join(ws, "sub", "..", "DOCKET.YAML"))?.what).toBe("docket.yaml");
    expect(files.find(join(ws, ".DOCKET", "Docket.DB"))?.what).toBe("the store");
    expect(files.find(join(ws, "sub", "innocent.txt"))?.what).toBe("the store");
    expect(files.find(join(ws, "state-link", "new-file"))?.what).toBe("docket's state folder");
    expect(files.find(join(ws, "sub", "hard.db"))?.what).toBe("the store");
  });

  it("a relative path resolves against the cwd it was given", () => {
    const files = docketOwnFiles({ files: [{ path: "policy.yaml", what: "a policy" }], cwd: ws });
    expect(files.find("policy.yaml")?.what).toBe("a policy");
    expect(files.find(join(ws, "policy.yaml"))?.what).toBe("a policy");
  });

  it("no spelling of the store's path escapes (property)", () => {
    const files = own();
    const segment = fc.constantFrom("", "./", "sub/../", ".docket/../", "x/y/../../");
    const casing = fc.array(fc.boolean(), { minLength: 17, maxLength: 17 });
    fc.assert(
      fc.property(segment, segment, casing, (a, b, upper) => {
        const name = ".docket/docket.db"
          .split("")
          .map((char, i) => (upper[i] ? char.toUpperCase() : char))
          .join("");
        const [dir, file] = name.split("/");
        return files.find(join(ws, `${a}${dir}/${b}${file}`)) !== undefined;
      }),
    );
  });

  it("a PostgreSQL store's password file is protected like the store", () => {
    const files = runtimeOwnFiles({
      storeUrl: "postgres://docket@db/docket",
      cwd: ws,
      env: { HOME: home, PGPASSFILE: join(home, "secrets", "pg.pass") },
    });
    expect(files.find(join(home, ".pgpass"))?.what).toBe("the store's password file");
    expect(files.find(join(home, "secrets", "pg.pass"))?.what).toBe("the store's password file");
    const sqlite = runtimeOwnFiles({ storeUrl: "sqlite:x.db", cwd: ws, env: { HOME: home } });
    expect(sqlite.find(join(home, ".pgpass"))).toBeUndefined();
  });

  it("a postgres or in-memory store has no file to protect", () => {
    for (const storeUrl of ["postgres://u:p@db/docket", "sqlite::memory:", ":memory:"]) {
      const files = runtimeOwnFiles({ storeUrl, cwd: ws, env: { HOME: home } });
      expect(files.entries.some((entry) => entry.what === "the store")).toBe(false);
    }
  });

  it("covers the audit key, its public key and the digest log wherever they are configured", () => {
    const elsewhere = join(home, "vault");
    const byEnv = runtimeOwnFiles({
      cwd: ws,
      env: { HOME: home, DOCKET_AUDIT_KEY: join(elsewhere, "k.pem") },
      sections: { audit: { digests: join(home, "logs", "digests.jsonl") } },
    });
    expect(byEnv.find(join(elsewhere, "k.pem"))?.what).toBe("the audit key");
    expect(byEnv.find(join(elsewhere, "k.pub.pem"))?.what).toBe("the audit public key");
    expect(byEnv.find(join(home, "logs", "digests.jsonl"))?.what).toBe("the audit digest log");
    // Only the files: the folders they sit in stay the user's.
    expect(byEnv.find(join(elsewhere, "notes.txt"))).toBeUndefined();
    const byDefault = runtimeOwnFiles({
      cwd: ws,
      env: { HOME: home, XDG_CONFIG_HOME: join(home, "xdg") },
    });
    expect(byDefault.find(join(home, "xdg", "docket", "audit-digests.jsonl"))).toBeDefined();
  });
});

describe("a path that cannot be looked up", () => {
  it("is judged by its name, never thrown: a name too long for the kernel, a file used as a folder", () => {
    const own = docketOwnFiles({ files: [{ path: "docket.yaml", what: "docket.yaml" }] });
    expect(own.find(resolve(`${"x".repeat(4093)}/a`))).toBeUndefined();
    expect(own.find(resolve("package.json/inside"))).toBeUndefined();
    expect(own.find(resolve(`${"./".repeat(3000)}docket.yaml`))?.what).toBe("docket.yaml");
  });

  it("knows hard links to files deep inside a protected folder (the code and parse caches)", async () => {
    const config = join(home, ".config", "docket");
    await mkdir(join(config, "cache", "code", "v1"), { recursive: true });
    await mkdir(join(config, "cache", "parsed-yaml"), { recursive: true });
    await writeFile(join(config, "cache", "code", "v1", "entry.bin"), "v8");
    await writeFile(join(config, "cache", "parsed-yaml", "entry.json"), "{}");
    await link(join(config, "cache", "code", "v1", "entry.bin"), join(ws, "sub", "code.bin"));
    await link(join(config, "cache", "parsed-yaml", "entry.json"), join(ws, "sub", "parse.json"));
    await writeFile(join(ws, "sub", "plain.bin"), "x");
    await link(join(ws, "sub", "plain.bin"), join(ws, "sub", "plain-2.bin"));
    const files = own();
    expect(files.find(join(ws, "sub", "code.bin"))?.what).toBe("docket's user config folder");
    expect(files.find(join(ws, "sub", "parse.json"))?.what).toBe("docket's user config folder");
    // A hard link among the workspace's own files is no match.
    expect(files.find(join(ws, "sub", "plain-2.bin"))).toBeUndefined();
  });

  it("fails closed for hard-linked files when a folder is too large to walk", async () => {
    const big = await realpath(await mkdtemp(join(tmpdir(), "docket-own-big-")));
    try {
      // Deeper than the walk goes: nothing below can be ruled out.
      await mkdir(join(big, ...Array.from({ length: 10 }, (_, k) => `d${k}`)), { recursive: true });
      await writeFile(join(ws, "sub", "lone.bin"), "x");
      await link(join(ws, "sub", "lone.bin"), join(ws, "sub", "lone-2.bin"));
      const files = docketOwnFiles({ directories: [{ path: big, what: "a big folder" }], cwd: ws });
      expect(files.find(join(ws, "sub", "lone-2.bin"))?.what).toBe("a big folder");
      // A file with a single link is never compared.
      expect(files.find(join(ws, "README.md"))).toBeUndefined();
    } finally {
      await rm(big, { recursive: true, force: true });
    }
  });
});
