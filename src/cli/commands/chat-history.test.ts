import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../test/loop/support/temp-dir.js";
import {
  chatHistoryFile,
  keepInHistory,
  loadChatHistory,
  MAX_HISTORY,
  saveChatHistory,
} from "./chat-history.js";

describe("chat history", () => {
  it("round-trips entries newest first, a multi-line entry as one", async () => {
    const file = chatHistoryFile(await tempDir("docket-history-"));
    saveChatHistory(file, ["second\nline two", "first"]);
    expect(loadChatHistory(file)).toEqual(["second\nline two", "first"]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("merges with what another chat saved meanwhile", async () => {
    const file = chatHistoryFile(await tempDir("docket-history-"));
    saveChatHistory(file, ["from chat one"]);
    saveChatHistory(file, ["from chat two"]);
    expect(loadChatHistory(file)).toEqual(["from chat two", "from chat one"]);
  });

  it(`keeps the newest ${MAX_HISTORY}`, async () => {
    const file = chatHistoryFile(await tempDir("docket-history-"));
    saveChatHistory(
      file,
      Array.from({ length: MAX_HISTORY + 5 }, (_, i) => `line ${MAX_HISTORY + 4 - i}`),
    );
    const history = loadChatHistory(file);
    expect(history).toHaveLength(MAX_HISTORY);
    expect(history[0]).toBe(`line ${MAX_HISTORY + 4}`);
    expect(history.at(-1)).toBe("line 5");
  });

  it("never writes a line that looks like a secret", async () => {
    const file = chatHistoryFile(await tempDir("docket-history-"));
    saveChatHistory(file, [
      "use the key sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
      "DB_PASSWORD=hunter2hunter2",
      "connect to postgres://app:s3cret@db/app",
      "list the files",
    ]);
    expect(readFileSync(file, "utf8")).toBe('"list the files"\n');
    expect(keepInHistory("ghp_abcdefghijklmnopqrstuvwxyz0123456789")).toBe(false);
    expect(keepInHistory("   ")).toBe(false);
  });

  it("an unreadable or damaged file is an empty history, and a hand-added secret is not loaded", async () => {
    const dir = await tempDir("docket-history-");
    expect(loadChatHistory(join(dir, "missing"))).toEqual([]);
    const file = join(dir, "damaged");
    writeFileSync(file, 'not json\n42\n"fine"\n"Bearer abcdefghijklmnop"\n');
    expect(loadChatHistory(file)).toEqual(["fine"]);
  });
});
