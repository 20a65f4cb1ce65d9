import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmdirSync } from "node:fs";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parkLaunch, takeParkedLaunch } from "../../src/sandbox/parked-launch.js";
import { pidsCgroupBase } from "../../src/sandbox/pids-cgroup.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { planSandboxLaunch } from "../../src/sandbox/sandbox-launch.js";
import { forkCountCommand, runInSandbox } from "../support/run-in-sandbox.js";

// Real bubblewrap and real pids cgroups (root, or a delegated cgroup v2): a launcher parked
// after one call runs the next one with every limit the unparked launch has (ADR 0055).
const available = probeSandbox().status === "available" && pidsCgroupBase() !== undefined;
const tsx = import.meta.resolve("tsx");
const parkedModule = fileURLToPath(new URL("../../src/sandbox/parked-launch.ts", import.meta.url));
const launchModule = fileURLToPath(new URL("../../src/sandbox/sandbox-launch.ts", import.meta.url));

let workspace: string;

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "docket-parked-")));
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const PROBE =
  "grep pids /proc/self/cgroup; echo data=$(ulimit -d); ls /proc/self/fd | tr '\\n' ' '; echo; echo done";

describe.skipIf(!available)("a launcher parked ahead of the call", () => {
  it("runs each later call in a cgroup of its own, with the memory limit and no extra descriptor", async () => {
    const texts: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      texts.push(
        (await runInSandbox(workspace, PROBE, { sandbox: { limits: { memoryMb: 96 } } })).text,
      );
    }
    const cgroups = texts.map((text) => /pids:\/(\S*docket-\d+-\d+)/.exec(text)?.[1]);
    expect(cgroups.every((name) => name !== undefined)).toBe(true);
    expect(new Set(cgroups).size).toBe(3);
    for (const text of texts) {
      expect(text).toContain(`data=${96 * 1024}`);
      expect(text).toContain("done");
      const fds = /^([\d ]+)$/m.exec(text)?.[1]?.trim().split(/\s+/) ?? [];
      // ls holds its listing open: 0, 1, 2 and that one; the parked launcher's fd 3 is closed.
      expect(fds.filter((fd) => Number(fd) > 2).length).toBeLessThanOrEqual(1);
    }
  }, 60_000);

  it("holds the process limit when the call runs through a parked launcher", async () => {
    const forks = forkCountCommand(200);
    const sandbox = { limits: { processes: 30 } };
    // The first call parks the launcher the second one takes.
    await runInSandbox(workspace, "true", { sandbox });
    const { text } = await runInSandbox(workspace, forks, { sandbox });
    const forked = Number(/forked (\d+)/.exec(text)?.[1]);
    expect(forked).toBeGreaterThan(5);
    expect(forked).toBeLessThan(30);
  }, 60_000);

  it("is not used for an argument holding a NUL, which a spawn refuses", () => {
    const plan = planSandboxLaunch({ workspace, argv: ["bash", "-c", "true"] });
    if (plan.status !== "ready" || plan.parkable === undefined) throw new Error("no cgroup plan");
    plan.cleanup();
    parkLaunch(plan.parkable, workspace);
    const withNul = { ...plan.parkable, argv: [...plan.parkable.argv.slice(0, -1), "echo a\0b"] };
    expect(takeParkedLaunch(withNul, workspace)).toBeUndefined();
    const taken = takeParkedLaunch(plan.parkable, workspace);
    expect(taken).toBeDefined();
    return new Promise<void>((resolve) =>
      taken?.child.on("close", (code) => {
        taken.cleanup();
        expect(code).toBe(0);
        resolve();
      }),
    );
  }, 30_000);

  it("is not used when its argument file lies in a writable bind (a TMPDIR inside the workspace)", async () => {
    const plan = planSandboxLaunch({ workspace, argv: ["bash", "-c", "true"] });
    if (plan.status !== "ready" || plan.parkable === undefined) throw new Error("no cgroup plan");
    plan.cleanup();
    parkLaunch(plan.parkable, workspace);
    // A command that can write the launcher's file could rewrite what runs outside the sandbox.
    const tmp = await realpath(tmpdir());
    const [bwrap, ...rest] = plan.parkable.argv;
    const bound = { ...plan.parkable, argv: [bwrap as string, "--bind", tmp, tmp, ...rest] };
    expect(takeParkedLaunch(bound, workspace)).toBeUndefined();
    // It was retired, not kept for a later call.
    expect(takeParkedLaunch(plan.parkable, workspace)).toBeUndefined();
  }, 30_000);

  it("ends without running anything when docket exits before the call", async () => {
    const marker = join(workspace, "ran-after-exit");
    const script = join(workspace, "park-and-exit.mts");
    await writeFile(
      script,
      [
        `import { parkLaunch } from ${JSON.stringify(parkedModule)};`,
        `import { planSandboxLaunch } from ${JSON.stringify(launchModule)};`,
        `const plan = planSandboxLaunch({ workspace: ${JSON.stringify(workspace)}, argv: ["bash", "-c", "touch ${marker}"] });`,
        `if (plan.status !== "ready" || !plan.parkable) throw new Error("no cgroup plan");`,
        "plan.cleanup();",
        `parkLaunch(plan.parkable, ${JSON.stringify(workspace)});`,
        "console.log(process.pid);",
      ].join("\n"),
    );
    const child = spawn(process.execPath, ["--import", tsx, script], { stdio: "pipe" });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    // The parked launcher's cgroup is named after the docket that made it.
    const base = pidsCgroupBase() ?? "";
    const mine = readdirSync(base).filter((name) => name.startsWith(`docket-${out.trim()}-`));
    expect(mine.length).toBeGreaterThan(0);
    const left = async () => {
      for (let i = 0; i < 50; i += 1) {
        const procs = mine.map((name) => readTextOr(join(base, name, "cgroup.procs"))).join("");
        if (procs.trim() === "") return "";
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return "still running";
    };
    expect(await left()).toBe("");
    for (const name of mine) tryRmdir(join(base, name));
    expect(existsSync(marker)).toBe(false);
  }, 60_000);
});

function readTextOr(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

function tryRmdir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Left to the next docket's sweep of stale cgroups.
  }
}
