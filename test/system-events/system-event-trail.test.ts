import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAuditSigner, createCheckpoint, defineTool, openStore } from "../../src/index.js";
import { policyReloaded } from "../../src/system-events/policy-reloaded.js";
import { defineSystemEvent } from "../../src/system-events/system-event-kind.js";
import {
  describeSystemEvent,
  SYSTEM_EVENT_KINDS,
} from "../../src/system-events/system-event-kinds.js";
import { rawSql } from "../store/support/raw-sql.js";
import { liftAllGuards } from "../store/support/signed-trail.js";
import { installedCliPath, useInstalledCli } from "../support/installed-cli.js";
import { dropTestSchemas, freshPostgresUrl, skipPostgres } from "../support/postgres.js";

// The CLI as users install it (test/support/installed-cli.ts), installed before the tests.
useInstalledCli();

// A kind defined here and nowhere else: adding a system event needs no store change.
const keyRotated = defineSystemEvent({
  kind: "test_key_rotated",
  isData: (data): data is { keyId: string } =>
    typeof data === "object" &&
    data !== null &&
    !Array.isArray(data) &&
    typeof (data as Record<string, unknown>).keyId === "string",
  summary: (data) => `audit key rotated to ${data.keyId}`,
});

afterAll(() => dropTestSchemas());

const engines = [
  { engine: "sqlite", url: (dir: string) => `sqlite:${join(dir, "docket.db")}`, skip: false },
  { engine: "postgres", url: () => freshPostgresUrl(), skip: skipPostgres },
] as const;

describe.each(engines)("system events on $engine", ({ url: urlOf, skip }) => {
  it.skipIf(skip)(
    "are chained and signed beside calls, listed by audit events, counted by verify, and an edit is caught",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "docket-system-events-"));
      const env = {
        ...process.env,
        HOME: dir,
        XDG_CONFIG_HOME: join(dir, ".config"),
        DOCKET_AUDIT_KEY: "",
      };
      const url = urlOf(dir);
      const signer = await createAuditSigner({ env });
      const store = await openStore(url, { signer });
      const lookup = defineTool({
        name: "lookup",
        description: "Look an order up.",
        writes: false,
        input: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
        handler: ({ id }) => ({ id }),
      });
      const checkpoint = createCheckpoint({
        tools: [lookup],
        store,
        policy: () => ({ decision: "allow" }),
      });
      const session = await store.createSession({ principal: "bot", configHash: "x" });
      const files = [{ path: "/p/docket.yaml", sha256: "a".repeat(64) }];
      const t0 = Date.now();
      await store.emit(policyReloaded.event({ status: "reloaded", files }, { at: t0 }));
      expect(
        (
          await checkpoint.dispatch(
            { id: "c1", name: "lookup", arguments: '{"id":"1"}' },
            { sessionId: session.id },
          )
        ).status,
      ).toBe("ok");
      await store.emit(
        policyReloaded.event(
          { status: "kept", files, reason: "docket.yaml:3: bad rule" },
          { sessionId: session.id, at: t0 + 1 },
        ),
      );
      await store.emit(keyRotated.event({ keyId: "k2" }, { at: t0 + 2 }));
      // No call row for an event that belongs to no call.
      expect((await store.listCalls({})).map((call) => call.callId)).toEqual(["c1"]);
      await store.close();
      await signer.close();

      const cli = (...args: string[]) =>
        spawnSync(process.execPath, [installedCliPath(), "audit", ...args, "--store", url], {
          env,
          encoding: "utf8",
        });
      const listed = cli("events", "--json");
      expect(listed.status, listed.stderr).toBe(0);
      const records = listed.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(records.map((r) => [r.event.kind, r.sessionId === session.id])).toEqual([
        ["policy_reloaded", false],
        ["policy_reloaded", true],
        ["test_key_rotated", false],
      ]);
      expect(records[0].event).toMatchObject({
        type: "system",
        callId: "",
        data: { status: "reloaded", files },
      });

      const reloads = cli("events", "--type", "policy_reloaded");
      expect(reloads.stdout).toContain("policy reloaded from /p/docket.yaml (sha256 aaaaaaaaaaaa)");
      expect(reloads.stdout).toContain(
        "policy kept: the new files did not load (docket.yaml:3: bad rule)",
      );
      expect(reloads.stdout).not.toContain("test_key_rotated");
      // Unknown to this docket's registry: shown as its kind and data, not dropped.
      expect(cli("events", "--type", "test_key_rotated").stdout).toContain(
        'test_key_rotated: {"keyId":"k2"}',
      );

      const verified = cli("verify");
      expect(verified.status, verified.stdout + verified.stderr).toBe(0);
      expect(verified.stdout).toContain(
        "system events (no call; docket audit events): 2 policy_reloaded, 1 test_key_rotated",
      );
      expect(JSON.parse(cli("verify", "--json").stdout).systemEvents).toEqual({
        policy_reloaded: 2,
        test_key_rotated: 1,
      });

      // A reload event edited after the fact: the chain no longer holds.
      const reader = await openStore(url, { readOnly: true });
      try {
        await rawSql(reader, [
          ...liftAllGuards(reader),
          `UPDATE audit_events SET event = replace(event, 'bad rule', 'fine rule') WHERE type = 'system'`,
        ]);
      } finally {
        await reader.close();
      }
      const tampered = cli("verify");
      expect(tampered.status).toBe(1);
      expect(tampered.stdout).toMatch(/TAMPERED/);
    },
    180_000,
  );
});

describe("the system event registry", () => {
  it("describes a test-only kind passed beside the real ones, and never throws on stored data", () => {
    const kinds = [...SYSTEM_EVENT_KINDS, keyRotated];
    expect(describeSystemEvent(keyRotated.event({ keyId: "k9" }), kinds)).toBe(
      "audit key rotated to k9",
    );
    expect(describeSystemEvent({ kind: "policy_reloaded", data: [1, 2] })).toBe(
      "policy_reloaded: [1,2]",
    );
    expect(describeSystemEvent({ kind: "x\u001b[31m", data: null })).toContain("x");
  });
});
