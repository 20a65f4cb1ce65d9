import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pinOf, pinStatus, readToolLock, withServerPins, writeToolLock } from "./tool-pins.js";

const tool = { name: "echo", description: "Echo.", inputSchema: { type: "object" as const } };

describe("tool pins", () => {
  it("a change to the description, the schema or the annotations changes the pin", () => {
    const base = pinOf(tool).sha256;
    expect(pinOf({ ...tool }).sha256).toBe(base);
    expect(pinOf({ ...tool, description: "Echo!" }).sha256).not.toBe(base);
    expect(
      pinOf({ ...tool, inputSchema: { type: "object", properties: { a: {} } } }).sha256,
    ).not.toBe(base);
    expect(pinOf({ ...tool, annotations: { readOnlyHint: true } }).sha256).not.toBe(base);
  });

  it("tells pinned, changed, new and unpinned servers apart", () => {
    const lock = withServerPins({ version: 1, servers: {} }, "up", [tool]);
    expect(pinStatus(lock, "up", tool).status).toBe("pinned");
    expect(pinStatus(lock, "up", { ...tool, description: "Other." }).status).toBe("changed");
    expect(pinStatus(lock, "up", { ...tool, name: "other" }).status).toBe("new");
    expect(pinStatus(lock, "down", tool).status).toBe("unpinned_server");
    expect(pinStatus(lock, "up", { ...tool, name: "constructor" }).status).toBe("new");
  });

  it("still holds a pin written before RFC 8785 (index-like keys first), and only for that tool", () => {
    const numbered = {
      ...tool,
      inputSchema: {
        type: "object" as const,
        properties: { "10": { type: "string" }, "9": { type: "string" } },
      },
    };
    // The text docket hashed before ADR 0062, written out by hand.
    const before =
      '{"description":"Echo.","inputSchema":{"properties":{"9":{"type":"string"},"10":{"type":"string"}},"type":"object"},"name":"echo"}';
    const sha256 = createHash("sha256").update(before).digest("hex");
    expect(pinOf(numbered).sha256).not.toBe(sha256);
    const pinned = { ...pinOf(numbered), sha256 };
    const lock = { version: 1 as const, servers: { up: { tools: { echo: pinned } } } };
    expect(pinStatus(lock, "up", numbered).status).toBe("pinned");
    const renamed = { ...numbered, inputSchema: { ...numbered.inputSchema, required: ["9"] } };
    expect(pinStatus(lock, "up", renamed).status).toBe("changed");
  });

  it("round-trips through the file, and a file that does not parse stops docket", () => {
    const dir = mkdtempSync(join(tmpdir(), "docket-pins-unit-"));
    const file = join(dir, "docket.lock.json");
    expect(readToolLock(file)).toEqual({ version: 1, servers: {} });
    const lock = withServerPins({ version: 1, servers: {} }, "up", [tool]);
    writeToolLock(file, lock);
    expect(readToolLock(file)).toEqual(lock);
    expect(readFileSync(file, "utf8")).toContain('"sha256"');
    writeFileSync(file, "{ nope");
    expect(() => readToolLock(file)).toThrow(/docket\.lock\.json: not JSON/);
    writeFileSync(
      file,
      JSON.stringify({ version: 1, servers: { up: { tools: { echo: { sha256: "x" } } } } }),
    );
    expect(() => readToolLock(file)).toThrow(/servers\.up\.tools\.echo/);
  });
});
