import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../../../src/store/open-store.js";
import { tempDir } from "../../loop/support/temp-dir.js";

/**
 * A project folder with a docket.yaml (removed when the test ends), and an environment for
 * docket there that nothing of the machine's leaks into: its own HOME, no DOCKET_, OpenAI or
 * colour settings.
 *
 * @example
 * ```ts
 * const { dir, env } = await cliProject("principal: agent\n");
 * ```
 */
export async function cliProject(yaml = "principal: agent\n") {
  const dir = await tempDir("docket-cli-");
  writeFileSync(join(dir, "docket.yaml"), yaml);
  mkdirSync(join(dir, "home"));
  const env: NodeJS.ProcessEnv = {
    HOME: join(dir, "home"),
    XDG_CONFIG_HOME: join(dir, "home", ".config"),
    DOCKET_STORE: "",
    DOCKET_CONFIG: "",
    NO_COLOR: "1",
    OPENAI_API_KEY: "",
    OPENAI_BASE_URL: "",
  };
  return { dir, env };
}

/**
 * The user's messages of every session in the project's store, by session id, oldest session
 * first.
 *
 * @example
 * ```ts
 * [...(await userMessages(dir)).values()]; // [["first"], ["second", "again"]]
 * ```
 */
export async function userMessages(dir: string): Promise<Map<string, string[]>> {
  const store = await openStore(`sqlite:${join(dir, ".docket", "docket.db")}`, {
    mustExist: true,
  });
  try {
    const out = new Map<string, string[]>();
    for (const session of (await store.listSessions()).reverse()) {
      const messages = await store.loadTranscript(session.id);
      out.set(
        session.id,
        messages.filter((m) => m.role === "user").map((m) => (m.content as { text: string }).text),
      );
    }
    return out;
  } finally {
    await store.close();
  }
}
