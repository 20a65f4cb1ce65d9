import { describe, expect, it } from "vitest";
import type { HookVerdict } from "./hook-answer.js";
import { isHookHostName } from "./hook-host-names.js";
import { HOST_NAMES, hostAdapter, hostAdapters, isHostName } from "./host-registry.js";
import { mapHostTool } from "./map-host-tool.js";

// The contract every host adapter keeps: a new host's module is checked by these tests as soon
// as its line is in the registry, with no test of its own needed for the common parts.
const verdicts: HookVerdict[] = [
  { type: "allow", reason: "docket: allowed" },
  { type: "deny", reason: "docket: denied by rule no-rm" },
  { type: "ask", reason: "docket asks" },
  { type: "none" },
];

describe.each(hostAdapters().map((adapter) => [adapter.name, adapter] as const))(
  "host %s",
  (name, adapter) => {
    it("is registered under its own name", () => {
      expect(isHostName(name)).toBe(true);
      expect(hostAdapter(name)).toBe(adapter);
      expect(HOST_NAMES).toContain(name);
      // The daemon client's list, which loads no adapter, knows it too.
      expect(isHookHostName(name)).toBe(true);
    });

    it("has a before and an after event, and ids to read", () => {
      const kinds = Object.values(adapter.events);
      expect(kinds).toContain("before");
      expect(kinds.some((kind) => kind === "after" || kind === "after-failure")).toBe(true);
      expect(adapter.ids.session).not.toBe("");
    });

    it("never lets a deny read as anything but a deny, on every event it judges", () => {
      for (const [event, kind] of Object.entries(adapter.events)) {
        if (kind === "settle" || kind === "after" || kind === "after-failure") continue;
        const reply = adapter.reply(event, {
          type: "deny",
          reason: "docket: denied by rule no-rm",
        });
        const denied =
          reply.exitCode === 2 ||
          /"(permissionDecision|decision)":"deny"|"behavior":"deny"/.test(reply.stdout);
        expect(denied, `${event}: ${reply.stdout}`).toBe(true);
        for (const verdict of verdicts) {
          const answer = adapter.reply(event, verdict);
          expect([0, 2]).toContain(answer.exitCode);
          if (answer.stdout !== "") expect(() => JSON.parse(answer.stdout)).not.toThrow();
        }
      }
    });

    it("an ask never reads as an allow where the host has no prompt of its own", () => {
      if (adapter.asking.hostPrompt) return;
      for (const [event, kind] of Object.entries(adapter.events)) {
        if (kind !== "before") continue;
        const reply = adapter.reply(event, { type: "ask", reason: "docket asks" });
        expect(reply.exitCode === 2 || reply.stdout.includes("deny"), reply.stdout).toBe(true);
      }
    });

    it("writes a registration that names docket's command, once, and removes exactly it", () => {
      const command = `docket hook ${name}`;
      const file = adapter.registration.target.file;
      const once = adapter.registration.install("", command, 30, file);
      expect(once).toContain(command);
      expect(adapter.registration.install(once, command, 30, file)).toBe(once);
      const removed = adapter.registration.uninstall(once, command, file);
      expect(removed === undefined || !removed.includes(command)).toBe(true);
      for (const path of adapter.registration.alsoGuarded)
        expect(path.startsWith("/"), path).toBe(false);
    });

    it("maps only its own tools, and a name it does not know to nothing", () => {
      for (const [tool, mapping] of Object.entries(adapter.tools)) {
        expect(mapHostTool(name, tool), tool).toEqual(mapping);
        if (mapping.escapes !== undefined) expect(mapping.writes).toBe(true);
      }
      expect(mapHostTool(name, "no-such-tool")).toBeUndefined();
    });

    it("reads its MCP tool names into server and tool, untrusted by default", () => {
      const sample = {
        "claude-code": "mcp__github__create_issue",
        codex: "mcp__github__create_issue",
        "gemini-cli": "mcp_github_create_issue",
        opencode: "github_create_issue",
      }[name];
      expect(adapter.mcpToolName(sample)).toEqual({ server: "github", tool: "create_issue" });
      expect(mapHostTool(name, sample)).toMatchObject({
        tool: "github__create_issue",
        writes: true,
        openWorld: true,
      });
      expect(mapHostTool(name, sample, {}, (server) => server === "github")?.openWorld).toBe(false);
    });
  },
);

describe("the daemon client's host names", () => {
  it("are exactly the registry's", () => {
    for (const word of ["install", "serve", "exec", "test", "uninstall", "vim", "", undefined]) {
      expect(isHookHostName(word)).toBe(isHostName(word));
    }
  });
});
