import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveHiddenPaths } from "./hidden-paths.js";

describe("the deny-glob walk's folder cache", () => {
  it("sees a file added, renamed or hidden behind a reset mtime in a folder it had cached", async () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), "docket-scan-")));
    mkdirSync(join(ws, "a", "b"), { recursive: true });
    writeFileSync(join(ws, "a", "b", "x.txt"), "");
    const walk = () => resolveHiddenPaths({ workspace: ws, hidePatterns: ["**/.env"] });
    expect(walk()).toEqual({ status: "ok", files: [], dirs: [], literal: [] });
    // Old enough to be cached (younger folders are never cached: a change within the same
    // timestamp tick would not show in ctime).
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    expect(walk()).toEqual({ status: "ok", files: [], dirs: [], literal: [] });
    expect(walk()).toEqual({ status: "ok", files: [], dirs: [], literal: [] });

    writeFileSync(join(ws, "a", "b", ".env"), "SECRET");
    // An mtime set back to what it was does not fool the cache, which compares ctime.
    utimesSync(join(ws, "a", "b"), new Date(0), new Date(0));
    expect(walk()).toEqual({
      status: "ok",
      files: [join(ws, "a", "b", ".env")],
      dirs: [],
      literal: [],
    });

    renameSync(join(ws, "a", "b", ".env"), join(ws, "a", ".env"));
    expect(walk()).toEqual({ status: "ok", files: [join(ws, "a", ".env")], dirs: [], literal: [] });
  });
});
