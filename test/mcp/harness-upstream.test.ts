import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createHarness } from "../../src/loop/create-harness.js";
import { connectMcpServers } from "../../src/mcp/connect-mcp-servers.js";
import { parseModelScript } from "../../src/model/model-script.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { openStore } from "../../src/store/open-store.js";
import { everythingServer } from "./support/mcp-fixtures.js";

describe("a scripted-model run that calls an upstream MCP tool", () => {
  it("goes through the checkpoint, policy and store like any other tool", async () => {
    const upstreams = await connectMcpServers(
      { servers: { everything: everythingServer() } },
      { log: () => {} },
    );
    const store = await openStore(
      `sqlite:${join(await mkdtemp(join(tmpdir(), "docket-mcp-run-")), "docket.db")}`,
    );
    try {
      const model = createScriptedModel(
        parseModelScript(
          `turns:
  - tool_calls:
      - { id: c1, name: everything__echo, arguments: '{"message":"hello upstream"}' }
      - { id: c2, name: everything__get-sum, arguments: '{"a":2,"b":3}' }
  - text: The server said hello, and 2 + 3 is 5.
`,
          "mcp-run.yaml",
        ),
      );
      const harness = createHarness({
        model,
        tools: upstreams.tools(),
        store,
        // Unknown annotations make upstream tools writes; this rule allows echo only.
        policy: {
          rules: [
            { decision: "allow", tool: "everything__echo" },
            { decision: "deny", tool: "everything__get-sum", reason: "no sums today" },
          ],
        },
      });
      const result = await harness.run("Say hello through the server, and add 2 and 3.");
      expect(result).toMatchObject({
        status: "completed",
        text: "The server said hello, and 2 + 3 is 5.",
      });

      // The model was told what happened: the echo ran, the sum was denied in words.
      const second = model.requests[1]?.prompt.at(-1);
      expect(second?.role).toBe("tool");
      const outputs =
        second?.role === "tool"
          ? second.content.map((p) => (p.type === "tool-result" ? p.output : undefined))
          : [];
      expect(outputs[0]).toMatchObject({
        type: "text",
        value: expect.stringContaining("hello upstream"),
      });
      expect(outputs[1]).toMatchObject({
        type: "error-text",
        value: expect.stringContaining("no sums today"),
      });

      const events = await store.listEvents({ sessionId: result.sessionId });
      expect(events.filter((e) => e.type === "finished").map((e) => e.callId)).toEqual(["c1"]);
      expect(events.filter((e) => e.type === "refused").map((e) => e.callId)).toEqual(["c2"]);
      expect(await store.verifyChain(result.sessionId)).toMatchObject({ ok: true });
    } finally {
      await store.close();
      await upstreams.close();
    }
  }, 60_000);
});
