import { createCheckpoint } from "../../../src/checkpoint/create-checkpoint.js";
import type { Store } from "../../../src/store/store.js";
import type { Tool } from "../../../src/tool/tool.js";
import { callEvents } from "./call-events.js";

/**
 * Two sessions (alice's and bob's) that share call ids: in each, a batch of three reads of
 * `echo` (`c0`–`c2`, the words a, b, c as `word` makes them) and a write `w1`. Returns the
 * sessions' ids.
 */
export async function twoSessions(
  store: Store,
  echo: Tool,
  word: (word: string, principal: string) => string = (w) => w,
): Promise<string[]> {
  const checkpoint = createCheckpoint({ tools: [echo], store });
  const sessions: string[] = [];
  for (const principal of ["alice", "bob"]) {
    const { id } = await store.createSession({ principal, configHash: "" });
    sessions.push(id);
    await checkpoint.dispatchBatch(
      ["a", "b", "c"].map((w, i) => ({
        id: `c${i}`,
        name: "echo",
        arguments: JSON.stringify({ word: word(w, principal) }),
      })),
      { sessionId: id },
    );
    await store.emitMany(callEvents({ sessionId: id, callId: "w1" }));
  }
  return sessions;
}
