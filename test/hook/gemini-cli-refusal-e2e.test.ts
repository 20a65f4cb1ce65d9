import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withRegistration } from "../../src/hook/hook-registration.js";
import { startFakeGeminiAgent } from "../support/fake-providers/fake-gemini-agent.js";
import type { FakeServer } from "../support/fake-providers/fake-server.js";
import {
  docketHookCommand,
  type HostWorkspace,
  hostBinary,
  hostWorkspace,
  readHostTrail,
} from "../support/host-e2e.js";
import { driveHostTty, ESCAPE } from "../support/host-tty.js";

// The real gemini-cli (0.61.0) at a pseudo-terminal asks its own user about a shell call docket
// answers `ask` ({"decision":"ask"}). Esc at its confirmation cancels the request: no AfterTool,
// no AfterAgent; the next event is BeforeAgent, the user's next prompt (seen with a recording
// hook). docket settles the call there as refused by gemini-cli:prompt.
const ASKS = [
  "policy:",
  "  rules:",
  "    - { id: mkdir-asks, tool: run_command, command: 'mkdir *', decision: ask }",
  "",
].join("\n");

let w: HostWorkspace | undefined;
let fake: FakeServer | undefined;
afterAll(async () => {
  await fake?.close();
  await w?.remove();
});

describe("gemini-cli cancelling at its own confirmation a call docket handed it", () => {
  it("Esc at the confirmation, then the next prompt, settles it as refused", async () => {
    w = await hostWorkspace("gemini-tty", { policy: ASKS, dirs: ["home/.gemini"] });
    fake = await startFakeGeminiAgent("run_shell_command", [
      { calls: [{ name: "run_shell_command", args: { command: "mkdir asked-effect" } }] },
    ]);
    await writeFile(
      join(w.home, ".gemini", "settings.json"),
      withRegistration(
        "gemini-cli",
        JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }),
        docketHookCommand("gemini-cli", w.config),
        60,
        "settings.json",
      ),
    );
    const tty = driveHostTty(hostBinary("gemini"), ["-i", "make it"], {
      cwd: w.ws,
      env: {
        ...process.env,
        HOME: w.home,
        GEMINI_API_KEY: "fake-key",
        GOOGLE_GEMINI_BASE_URL: fake.url,
        GEMINI_CLI_TRUST_WORKSPACE: "true",
        TERM: "xterm-256color",
      },
    });
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    try {
      const asked = await tty.shown(/Allowexecutionof/);
      tty.type(ESCAPE);
      await tty.shown(/Requestcancelled/, asked);
      // Typed, then Enter on its own: all at once reads as a paste.
      tty.type("next thing");
      await pause(1000);
      tty.type("\r");
      let trail = await readHostTrail(w.ws);
      for (let i = 0; i < 120 && !trail.calls.some((c) => c.status === "refused"); i += 1) {
        await pause(250);
        trail = await readHostTrail(w.ws);
      }
      expect(existsSync(join(w.ws, "asked-effect"))).toBe(false);
      const first = [...trail.calls].sort((a, b) => a.seenAt - b.seenAt)[0];
      expect(first).toMatchObject({ status: "refused", reason: "approval_denied" });
      expect(first?.outcome?.message).toContain("took the user's next prompt");
      const denial = trail.events.find((e) => e.type === "approval_denied")?.event;
      expect(denial).toMatchObject({ by: "gemini-cli:prompt" });
      expect(trail.verified).toBe(true);
    } finally {
      await tty.close();
    }
  }, 200_000);
});
