import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writableLink } from "./writable-link.js";

let home: string;

beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), "docket-link-")));
  mkdirSync(join(home, "dotfiles", "docket"), { recursive: true });
  mkdirSync(join(home, "real", ".config"), { recursive: true });
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

describe("writableLink", () => {
  it("finds a link to the folder itself, or to a folder above it, inside a writable root", () => {
    mkdirSync(join(home, ".config"));
    symlinkSync(join(home, "dotfiles", "docket"), join(home, ".config", "docket"));
    expect(writableLink(join(home, ".config", "docket"), [home])).toBe(
      join(home, ".config", "docket"),
    );
    rmSync(join(home, ".config"), { recursive: true });
    symlinkSync(join(home, "real", ".config"), join(home, ".config"));
    expect(writableLink(join(home, ".config", "docket"), [home])).toBe(join(home, ".config"));
  });

  it("ignores links in folders the sandbox cannot write, and paths without links", () => {
    mkdirSync(join(home, "ws"));
    symlinkSync(join(home, "ws"), join(home, "ws-link"));
    // The link lies in `home`, which is not writable here: the sandbox's root is read-only.
    expect(writableLink(join(home, "ws-link", ".docket"), [join(home, "ws")])).toBeUndefined();
    expect(writableLink(join(home, "dotfiles", "docket"), [home])).toBeUndefined();
    expect(writableLink(join(home, "missing", "docket"), [home])).toBeUndefined();
  });
});
