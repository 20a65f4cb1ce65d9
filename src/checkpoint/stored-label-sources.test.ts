import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import { defineTool } from "../tool/define-tool.js";
import { createCheckpoint } from "./create-checkpoint.js";
import { storedLabelSources } from "./stored-label-sources.js";

const tools = [
  defineTool({
    name: "noop",
    description: "Does nothing. Use it in tests.",
    input: z.object({ n: z.number().describe("n") }),
    writes: false,
    handler: ({ n }) => n,
  }),
  defineTool({
    name: "web",
    description: "Reads a page from outside. Use it in tests.",
    input: z.object({ url: z.string().describe("url") }),
    writes: false,
    openWorld: true,
    handler: ({ url }) => `the page at ${url}`,
  }),
];

let dir: string;
const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function open(): Promise<Store> {
  const store = await openStore(`sqlite:${join(dir, "docket.db")}`);
  opened.push(store);
  return store;
}

let calls = 0;
async function dispatch(store: Store, sessionId: string, url?: string): Promise<string> {
  const checkpoint = createCheckpoint({ tools, store, policy: () => ({ decision: "allow" }) });
  const id = `call_${++calls}`;
  const result = await checkpoint.dispatch(
    url === undefined
      ? { id, name: "noop", arguments: `{"n":${calls}}` }
      : { id, name: "web", arguments: JSON.stringify({ url }) },
    { sessionId },
  );
  expect(result.status).toBe("ok");
  return id;
}

describe("storedLabelSources", () => {
  it("reads a session once: later asks read only what was appended since, by anyone", async () => {
    dir = await mkdtemp(join(tmpdir(), "docket-labels-"));
    const [mine, other] = [await open(), await open()];
    const session = (await mine.createSession({ principal: "agent", configHash: "" })).id;
    for (let i = 0; i < 5; i += 1) await dispatch(mine, session);
    const one = await dispatch(mine, session, "https://one.example/");
    let read = 0;
    const counted: Pick<Store, "listEvents"> = {
      listEvents: async (filter) => {
        const records = await mine.listEvents(filter);
        read += records.length;
        return records;
      },
    };

    const first = await storedLabelSources(counted, session);
    expect(first.map((source) => source.callId)).toEqual([one]);
    const all = await mine.listEvents({ sessionId: session });
    expect(read).toBe(all.length);
    const lastSeq = all[all.length - 1]?.seq as number;

    // Another connection to the file (another process, as far as SQLite knows) appends.
    for (let i = 0; i < 3; i += 1) await dispatch(other, session);
    const two = await dispatch(other, session, "https://two.example/");
    read = 0;
    first.length = 0; // what a caller does to its copy is not what was read
    const second = await storedLabelSources(counted, session);
    expect(second.map((source) => source.callId)).toEqual([one, two]);
    expect(read).toBe((await mine.listEvents({ sessionId: session, afterSeq: lastSeq })).length);
    expect(read).toBeGreaterThan(0);

    read = 0;
    expect(await storedLabelSources(counted, session)).toEqual(second);
    expect(read).toBe(0);
    // Another store object has read nothing yet: it reads the whole session.
    expect(await storedLabelSources(other, session)).toEqual(second);
  });

  it("reads on past a first read of more than a page: its store then sees another's later label", async () => {
    dir = await mkdtemp(join(tmpdir(), "docket-labels-"));
    const [mine, other] = [await open(), await open()];
    const session = (await mine.createSession({ principal: "agent", configHash: "" })).id;
    const checkpoint = createCheckpoint({
      tools,
      store: mine,
      policy: () => ({ decision: "allow" }),
    });
    // More than one page of events (1,000): the first read stops at a page's limit once.
    while ((await mine.listEvents({ sessionId: session, limit: 1_201 })).length <= 1_200) {
      const batch = Array.from({ length: 10 }, () => {
        calls += 1;
        return { id: `call_${calls}`, name: "noop", arguments: `{"n":${calls}}` };
      });
      await checkpoint.dispatchBatch(batch, { sessionId: session });
    }
    expect(await storedLabelSources(mine, session)).toEqual([]);
    const web = await dispatch(other, session, "https://late.example/");
    expect((await storedLabelSources(mine, session)).map((source) => source.callId)).toEqual([web]);
    // And the store can still write.
    await dispatch(mine, session);
  });

  it("reads only the labelled results, then only those after the head it last saw", async () => {
    dir = await mkdtemp(join(tmpdir(), "docket-labels-"));
    const [mine, other] = [await open(), await open()];
    const session = (await mine.createSession({ principal: "agent", configHash: "" })).id;
    for (let i = 0; i < 5; i += 1) await dispatch(mine, session);
    const one = await dispatch(mine, session, "https://one.example/");
    for (let i = 0; i < 5; i += 1) await dispatch(mine, session);
    let returned = 0;
    const asked: (number | undefined)[] = [];
    const counted: Pick<Store, "listEvents" | "listChainHeads"> = {
      listEvents: async (filter = {}) => {
        asked.push(filter.afterSeq);
        const records = await mine.listEvents(filter);
        returned += records.length;
        return records;
      },
      listChainHeads: (id) => mine.listChainHeads(id),
    };
    expect((await storedLabelSources(counted, session)).map((s) => s.callId)).toEqual([one]);
    expect(returned).toBe(1);
    const [head] = await mine.listChainHeads(session);

    for (let i = 0; i < 3; i += 1) await dispatch(other, session);
    const two = await dispatch(other, session, "https://two.example/");
    returned = 0;
    asked.length = 0;
    const second = await storedLabelSources(counted, session);
    expect(second.map((source) => source.callId)).toEqual([one, two]);
    expect(returned).toBe(1);
    // Read after the head of the first ask, not after its last labelled result.
    expect(asked).toEqual([head?.seq]);

    returned = 0;
    expect(await storedLabelSources(counted, session)).toEqual(second);
    expect(returned).toBe(0);
  });

  it("gives the same labels from a store that ignores the filter and returns every event", async () => {
    dir = await mkdtemp(join(tmpdir(), "docket-labels-"));
    const store = await open();
    const session = (await store.createSession({ principal: "agent", configHash: "" })).id;
    const ids = [];
    for (let i = 0; i < 12; i += 1)
      ids.push(await dispatch(store, session, i % 4 === 0 ? `https://${i}.example/` : undefined));
    const everything: Pick<Store, "listEvents" | "listChainHeads"> = {
      listEvents: ({ labelled: _ignored, ...filter } = {}) => store.listEvents(filter),
      listChainHeads: (id) => store.listChainHeads(id),
    };
    const sources = await storedLabelSources(everything, session);
    expect(sources.map((source) => source.callId)).toEqual([ids[0], ids[4], ids[8]]);
    expect(await storedLabelSources(store, session)).toEqual(sources);
  });

  it("keeps nothing from a read that failed half way: the next ask reads it again", async () => {
    dir = await mkdtemp(join(tmpdir(), "docket-labels-"));
    const store = await open();
    const session = (await store.createSession({ principal: "agent", configHash: "" })).id;
    const one = await dispatch(store, session, "https://one.example/");
    let fail = true;
    const flaky: Pick<Store, "listEvents"> = {
      listEvents: async (filter) => {
        if (fail) throw new Error("the store went away");
        return store.listEvents(filter);
      },
    };
    await expect(storedLabelSources(flaky, session)).rejects.toThrow("the store went away");
    fail = false;
    const sources = await storedLabelSources(flaky, session);
    expect(sources.map((source) => source.callId)).toEqual([one]);
  });
});
