import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJson } from "../shared/parse-json.js";
import { readHookEvent } from "./hook-event.js";
import { HOST_NAMES, hostAdapter } from "./host-registry.js";
import { ID_PATTERN, isSettleEvent, settleEvents } from "./settle-event.js";

// Whatever a host (or something pretending to be one) writes on stdin, the reader returns one of
// its answers and never throws; only a payload with every required field reads as a call.
const host = fc.constantFrom(...HOST_NAMES);
const field = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.constant(null),
  fc.array(fc.string()),
  fc.object(),
);
const payload = fc.record(
  {
    hook_event_name: fc.oneof(
      fc.constantFrom(
        "PreToolUse",
        "PostToolUse",
        "BeforeTool",
        "AfterTool",
        "PermissionRequest",
        "tool.execute.before",
      ),
      field,
    ),
    session_id: fc.oneof(fc.stringMatching(/^[\w-]{1,40}$/), field),
    tool_name: fc.oneof(fc.constantFrom("Bash", "run_shell_command", "bash", "__proto__"), field),
    tool_input: fc.oneof(fc.object(), field),
    tool_use_id: fc.oneof(fc.stringMatching(/^[\w-]{1,40}$/), field),
    tool_response: field,
  },
  { requiredKeys: [] },
);

describe("readHookEvent", () => {
  it("never throws on any text", () => {
    fc.assert(
      fc.property(host, fc.string(), (name, text) => {
        expect(["read", "settle", "ignored", "unreadable"]).toContain(
          readHookEvent(name, text).status,
        );
      }),
    );
  });

  it("reads a call only with a plain session id, a tool name and an object tool_input", () => {
    fc.assert(
      fc.property(host, payload, (name, generated) => {
        // As a host would send it: JSON, so no undefined.
        const value = parseJson(JSON.stringify(generated)) as typeof generated;
        const reading = readHookEvent(name, JSON.stringify(value));
        if (reading.status !== "read") return;
        const event = reading.event;
        expect(typeof value.session_id === "string" && value.session_id === event.sessionId).toBe(
          true,
        );
        expect(event.toolName).toBe(value.tool_name);
        expect(typeof value.tool_input === "object" && !Array.isArray(value.tool_input)).toBe(true);
        expect(parseJson(event.inputText)).toEqual(value.tool_input);
      }),
    );
  });

  it("settles only for its host's settle events, with plain ids from the payload, and never denies there", () => {
    const settleNames = [...new Set(HOST_NAMES.flatMap((host) => settleEvents(host)))];
    const batch = fc.record(
      {
        hook_event_name: fc.constantFrom(...settleNames),
        session_id: fc.oneof(fc.stringMatching(/^[\w-]{1,40}$/), field),
        tool_calls: fc.oneof(
          fc.array(
            fc.record(
              { tool_use_id: fc.oneof(fc.stringMatching(/^[\w-]{1,40}$/), field) },
              { requiredKeys: [] },
            ),
          ),
          field,
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(host, batch, (name, generated) => {
        const value = parseJson(JSON.stringify(generated)) as Record<string, unknown>;
        const reading = readHookEvent(name, JSON.stringify(value));
        if (isSettleEvent(name, value.hook_event_name)) {
          expect(["settle", "ignored"]).toContain(reading.status);
        }
        if (reading.status !== "settle") return;
        const event = reading.event;
        expect(settleEvents(name)).toContain(value.hook_event_name);
        expect(event.sessionId).toBe(value.session_id);
        expect(ID_PATTERN.test(event.sessionId)).toBe(true);
        if (value.hook_event_name !== "PostToolBatch") {
          expect(event.callIds).toBeUndefined();
          return;
        }
        const sent = (value.tool_calls as { tool_use_id?: unknown }[]).map((c) => c.tool_use_id);
        expect(event.callIds).toEqual(sent);
        for (const id of event.callIds ?? []) expect(ID_PATTERN.test(id)).toBe(true);
      }),
    );
  });

  it("a deny is never put in words that allow", () => {
    fc.assert(
      fc.property(host, fc.string(), fc.string(), (name, eventName, reason) => {
        const reply = hostAdapter(name).reply(eventName, { type: "deny", reason });
        expect(reply.stdout).not.toMatch(/"(allow|approve)"/);
        if (reply.exitCode === 0) expect(reply.stdout).toMatch(/deny/);
      }),
    );
  });
});

describe("readHookEvent and V8's escaped-key misreading (nodejs/node#63785)", () => {
  it("reads the agent's tool_input keys as written, after the process saw the key V8 confuses them with", () => {
    // A first key no other object has, so V8 knows one next key after it: the one it confuses.
    JSON.parse('{"hookProbeCommand":[],"a\\\\":0}');
    const reading = readHookEvent(
      "claude-code",
      '{"hook_event_name":"PreToolUse","session_id":"s1","tool_name":"Bash","tool_use_id":"toolu_1","tool_input":{"hookProbeCommand":"ls","a\\n":1}}',
    );
    expect(reading.status).toBe("read");
    if (reading.status === "read") {
      expect(reading.event.inputText).toBe('{"hookProbeCommand":"ls","a\\n":1}');
    }
  });
});
