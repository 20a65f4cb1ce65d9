import { spawnSync } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { inheritedFds } from "./inherited-fds.js";

const tsx = import.meta.resolve("tsx");
const module = fileURLToPath(new URL("./inherited-fds.ts", import.meta.url));

describe("inheritedFds", () => {
  it("finds none of the descriptors this process opened itself", () => {
    const fd = openSync(fileURLToPath(import.meta.url), "r");
    try {
      expect(inheritedFds()).not.toContain(fd);
    } finally {
      closeSync(fd);
    }
  });

  it("finds a descriptor a parent passed without close-on-exec, on any number", () => {
    // bash opens them for its child without close-on-exec, as `exec 40>log` would. (Node marks
    // 0 to about 15 close-on-exec at its start, so the high ones are those that pass through.)
    const script = `import { inheritedFds } from ${JSON.stringify(module)}; console.log(JSON.stringify(inheritedFds()));`;
    const run = spawnSync(
      "bash",
      [
        "-c",
        'exec 40>/dev/null 200>/dev/null; exec "$@"',
        "x",
        process.execPath,
        "--import",
        tsx,
        "--input-type=module",
        "-e",
        script,
      ],
      { encoding: "utf8" },
    );
    expect(JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "null")).toEqual(
      expect.arrayContaining([40, 200]),
    );
  });
});
