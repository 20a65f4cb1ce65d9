import { describe, expect, it } from "vitest";
import { type BwrapPlan, bwrapArguments } from "./bwrap-arguments.js";

const plan: BwrapPlan = {
  workspace: "/ws",
  cwd: "/ws",
  writable: [],
  hiddenFiles: ["/ws/.env", "/ws/secret/inner.txt", "/tmp/elsewhere.txt"],
  hiddenDirs: ["/ws/secret", "/home/u/.ssh"],
  emptyFile: "/E/file",
  emptyDir: "/E/dir",
  network: "none",
  env: { PATH: "/bin" },
  argv: ["bash", "-c", "ls"],
};

function pairs(args: string[], flag: string): string[][] {
  return args.flatMap((arg, i) => (arg === flag ? [[args[i + 1] ?? "", args[i + 2] ?? ""]] : []));
}

describe("bwrapArguments", () => {
  it("drops every capability and unshares the network unless all", () => {
    const args = bwrapArguments(plan);
    expect(args.join(" ")).toContain("--cap-drop ALL");
    expect(args).toContain("--unshare-net");
    expect(bwrapArguments({ ...plan, network: "all" })).not.toContain("--unshare-net");
    expect(bwrapArguments({ ...plan, network: "loopback" })).toContain("--unshare-net");
  });

  it("binds the workspace after the private /tmp, and hides after the workspace", () => {
    const args = bwrapArguments(plan);
    const tmp = args.indexOf("/tmp");
    const ws = args.indexOf("--bind");
    const firstHide = args.indexOf("/E/dir");
    expect(tmp).toBeLessThan(ws);
    expect(ws).toBeLessThan(firstHide);
  });

  it("covers hidden paths once: nothing inside a hidden folder or a private one", () => {
    expect(pairs(bwrapArguments(plan), "--ro-bind")).toEqual([
      ["/", "/"],
      ["/E/dir", "/ws/secret"],
      ["/E/dir", "/home/u/.ssh"],
      ["/E/file", "/ws/.env"],
    ]);
  });

  it("clears the environment and sets only what it is given, then runs argv after --", () => {
    const args = bwrapArguments(plan);
    expect(args).toContain("--clearenv");
    expect(pairs(args, "--setenv")).toEqual([["PATH", "/bin"]]);
    expect(args.slice(-4)).toEqual(["--", "bash", "-c", "ls"]);
  });

  it("sizes the private file systems in memory within the memory limit, and makes /dev read-only", () => {
    const total = 64 * 1024 * 1024;
    const args = bwrapArguments({ ...plan, tmpfsBytes: total });
    const sizes = new Map<string, number>();
    args.forEach((arg, i) => {
      if (arg === "--size") sizes.set(args[i + 3] ?? "", Number(args[i + 1]));
    });
    expect([...sizes.keys()].sort()).toEqual(["/dev/shm", "/run", "/tmp", "/var/tmp"]);
    expect([...sizes.values()].reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(total);
    expect(sizes.get("/tmp")).toBe(total / 2);
    // /dev/shm is mounted over bwrap's /dev, which is then read-only.
    expect(args.indexOf("/dev/shm")).toBeLessThan(args.indexOf("--remount-ro"));
    expect(args[args.indexOf("--remount-ro") + 1]).toBe("/dev");
  });
});
