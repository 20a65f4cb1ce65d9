import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { type ForeignUserWorker, foreignUserWorker } from "../support/foreign-user-worker.js";

// Root writes anything, so the opener runs as nobody (uid 65534), against real file modes. It
// runs as a bundle in a world-readable folder of its own: nobody may not reach the checkout
// (a clone in a 0700 folder, /root), and must not need to.
const root = mkdtempSync(join(tmpdir(), "docket-unwritable-"));
chmodSync(root, 0o755);
const asRoot = process.getuid?.() === 0;
let worker: ForeignUserWorker;
beforeAll(async () => {
  if (asRoot)
    worker = await foreignUserWorker(
      fileURLToPath(new URL("./fixtures/open-worker.ts", import.meta.url)),
    );
}, 60_000);
afterAll(() => {
  chmodSync(root, 0o755);
  rmSync(root, { recursive: true, force: true });
  worker?.remove();
});

const openAsNobody = (path: string) => worker.runAs({ uid: 65534, gid: 65534 }, [`sqlite:${path}`]);

describe.skipIf(!asRoot)("an unwritable SQLite store", () => {
  it("is refused at open with its path, whether the file or its folder is read-only", async (context) => {
    if (worker.unreachable) context.skip(worker.unreachable);
    const dir = join(root, "store");
    const path = join(dir, "docket.db");
    await (await openStore(`sqlite:${path}`)).close();
    chmodSync(dir, 0o777);
    chmodSync(path, 0o666);
    expect(openAsNobody(path)).toBe("OPENED");

    chmodSync(path, 0o444);
    const file = openAsNobody(path);
    expect(file).toMatch(/^ERROR store_unwritable The store at \S+docket\.db cannot be written/);
    expect(file).toContain(path);

    chmodSync(path, 0o666);
    chmodSync(dir, 0o555);
    const folder = openAsNobody(path);
    expect(folder).toMatch(/^ERROR store_unwritable /);
    expect(folder).toContain("its folder");
    expect(folder).not.toMatch(/\n\s+at /);
  }, 60_000);
});
