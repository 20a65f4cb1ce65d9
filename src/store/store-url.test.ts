import { describe, expect, it } from "vitest";
import { isDocketError } from "../errors/docket-error.js";
import { resolveStoreUrl } from "./resolve-store-url.js";
import { parseStoreUrl, redactStoreUrl } from "./store-url.js";

describe("parseStoreUrl", () => {
  it("refuses an unknown scheme rather than making a SQLite file named after it", () => {
    for (const url of ["postgress://u:pw@db/x", "mysql://db/x", "file:x.db", "sqlite3:x.db"]) {
      let error: unknown;
      try {
        parseStoreUrl(url);
      } catch (caught) {
        error = caught;
      }
      expect(isDocketError(error) && error.code).toBe("invalid_store_url");
      expect(String((error as Error).message)).toMatch(/Unknown store scheme/);
      expect(String((error as Error).message)).not.toContain("pw");
    }
    expect(parseStoreUrl("C:/data/docket.db")).toMatchObject({ path: "C:/data/docket.db" });
    expect(parseStoreUrl(":memory:")).toMatchObject({ path: ":memory:" });
  });
  it("reads SQLite URLs, bare paths and :memory:", () => {
    expect(parseStoreUrl("sqlite:")).toMatchObject({
      engine: "sqlite",
      path: ".docket/docket.db",
      synchronous: "NORMAL",
      buffer: true,
    });
    expect(
      parseStoreUrl("sqlite:data/app.db?synchronous=full&busy_timeout=100&buffer=off"),
    ).toEqual({
      engine: "sqlite",
      path: "data/app.db",
      synchronous: "FULL",
      busyTimeoutMs: 100,
      buffer: false,
    });
    expect(parseStoreUrl("/var/lib/docket.db")).toMatchObject({ path: "/var/lib/docket.db" });
    expect(parseStoreUrl(":memory:")).toMatchObject({ path: ":memory:" });
    expect(() => parseStoreUrl("sqlite:x.db?synchronous=sometimes")).toThrow(/synchronous/);
  });

  it("reads PostgreSQL URLs and keeps docket's parameters out of pg's", () => {
    expect(parseStoreUrl("postgresql://u:p@db:5432/docket?schema=agent&sslmode=require")).toEqual({
      engine: "postgres",
      connectionString: "postgresql://u:p@db:5432/docket?sslmode=require",
      schema: "agent",
      buffer: true,
      connectTimeoutMs: 10_000,
      queryTimeoutMs: 60_000,
    });
    expect(
      parseStoreUrl(
        "postgres://u:p@db/docket?connect_timeout=3&query_timeout=2500&sslmode=require",
      ),
    ).toMatchObject({
      connectionString: "postgres://u:p@db/docket?sslmode=require",
      connectTimeoutMs: 3_000,
      queryTimeoutMs: 2_500,
    });
    expect(parseStoreUrl("postgres://db/x?query_timeout=0")).toMatchObject({ queryTimeoutMs: 0 });
    expect(parseStoreUrl("postgres://db/x?query_timeout=2147483647")).toMatchObject({
      queryTimeoutMs: 2_147_483_647,
    });
    for (const bad of [
      "query_timeout=-1",
      "query_timeout=1.5",
      "query_timeout=",
      "query_timeout=1e3",
      "query_timeout=%2B5",
      // Beyond Node's longest timer, which would fire at once.
      "query_timeout=2147483648",
      "connect_timeout=soon",
      "connect_timeout=2147484",
    ]) {
      expect(() => parseStoreUrl(`postgres://u:secret@db/x?${bad}`)).toThrow(
        /must be a whole number of (ms|seconds) from 0 \(no limit\) to \d+/,
      );
      expect(() => parseStoreUrl(`postgres://u:secret@db/x?${bad}`)).not.toThrow(/secret/);
    }
    try {
      parseStoreUrl("postgres://db/x?schema=Agent;drop");
      expect.unreachable();
    } catch (error) {
      expect(isDocketError(error, "invalid_store_url")).toBe(true);
    }
  });

  it("hides a password", () => {
    expect(redactStoreUrl("postgres://u:secret@db/docket")).toBe("postgres://u:***@db/docket");
    expect(redactStoreUrl("sqlite:a.db")).toBe("sqlite:a.db");
  });
});

describe("resolveStoreUrl", () => {
  it("prefers the flag, then DOCKET_STORE, then the config, then the embedded file", () => {
    const env = { DOCKET_STORE: "postgres://db/env" };
    expect(resolveStoreUrl({ flag: "sqlite:flag.db", config: "sqlite:c.db", env })).toBe(
      "sqlite:flag.db",
    );
    expect(resolveStoreUrl({ config: "sqlite:c.db", env })).toBe("postgres://db/env");
    expect(resolveStoreUrl({ config: "sqlite:c.db", env: {} })).toBe("sqlite:c.db");
    expect(resolveStoreUrl({ env: { DOCKET_STORE: " " } })).toBe("sqlite:.docket/docket.db");
  });
});
