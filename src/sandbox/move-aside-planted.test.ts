import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { moveAsidePlanted, watchPlanted } from "./move-aside-planted.js";

let ws: string;

beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), "docket-plant-")));
});

afterEach(() => {
  rmSync(ws, { recursive: true, force: true });
});

describe("moveAsidePlanted", () => {
  it("renames a planted file aside under a name nobody could take first, and says so", () => {
    const watch = watchPlanted([join(ws, "docket.yaml")]);
    writeFileSync(join(ws, "docket.yaml"), "sandbox: { mode: off }\n");
    // What a program guessing the old name (time only) would have made to block the rename.
    // Every name of the next 5 seconds: a slow machine still finds its time-only name taken.
    const now = Date.now();
    for (let t = now; t < now + 5_000; t += 1) mkdirSync(join(ws, `docket.yaml.from-sandbox-${t}`));
    const notes = moveAsidePlanted(watch, { by: "the MCP server" });
    expect(notes).toEqual([
      {
        moved: true,
        text: expect.stringMatching(
          /^docket: the MCP server created docket\.yaml, one of docket's own files; docket moved it to docket\.yaml\.from-sandbox-\d+-[0-9a-f]{8} and will not load it\.$/,
        ),
      },
    ]);
    expect(existsSync(join(ws, "docket.yaml"))).toBe(false);
    const aside = readdirSync(ws).filter((name) => /-[0-9a-f]{8}$/.test(name));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(ws, aside[0] ?? ""), "utf8")).toBe("sandbox: { mode: off }\n");
  });

  it("keeps the plain aside name when it is free", () => {
    const watch = watchPlanted([join(ws, "docket.yaml")]);
    writeFileSync(join(ws, "docket.yaml"), "x\n");
    expect(moveAsidePlanted(watch)).toEqual([
      {
        moved: true,
        text: expect.stringMatching(
          /^docket: the command created docket\.yaml, one of docket's own files; docket moved it to docket\.yaml\.from-sandbox-\d+ and will not load it\.$/,
        ),
      },
    ]);
  });

  it("says nothing when nothing was made", () => {
    expect(moveAsidePlanted(watchPlanted([join(ws, "docket.yaml"), join(ws, "no", "x")]))).toEqual(
      [],
    );
  });

  it("leaves a file alone whose folder became a link elsewhere, and says to remove it", () => {
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "docket-plant-out-")));
    try {
      writeFileSync(join(outside, "secret.env"), "KEEP\n");
      const watch = watchPlanted([join(ws, "conf", "secret.env")]);
      symlinkSync(outside, join(ws, "conf"));
      const notes = moveAsidePlanted(watch);
      expect(notes).toEqual([
        {
          moved: false,
          text: expect.stringContaining(
            `could not move it aside (its folder now leads to ${outside}): remove ${join(ws, "conf", "secret.env")}`,
          ),
        },
      ]);
      expect(readFileSync(join(outside, "secret.env"), "utf8")).toBe("KEEP\n");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("leaves a file in a folder made after launch to the sweep after the program ends", () => {
    const watch = watchPlanted([join(ws, "made", "docket.yaml")]);
    mkdirSync(join(ws, "made"));
    writeFileSync(join(ws, "made", "docket.yaml"), "x\n");
    // While it may still run, the program could swap the folder between the check and the rename.
    expect(moveAsidePlanted(watch, { live: true })).toEqual([]);
    expect(existsSync(join(ws, "made", "docket.yaml"))).toBe(true);
    expect(moveAsidePlanted(watch)).toMatchObject([{ moved: true }]);
    expect(existsSync(join(ws, "made", "docket.yaml"))).toBe(false);
  });

  it("reports rather than throws when the path cannot be looked at", () => {
    const watch = watchPlanted([join(ws, "loop", "docket.yaml"), join(ws, "file", "docket.yaml")]);
    symlinkSync(join(ws, "loop"), join(ws, "loop"));
    writeFileSync(join(ws, "file"), "a file, not a folder\n");
    const notes = moveAsidePlanted(watch);
    // A link loop may hide a file; a plain file on the way means there is none.
    expect(notes).toEqual([
      { moved: false, text: expect.stringContaining("could not move it aside (ELOOP)") },
    ]);
  });
});
