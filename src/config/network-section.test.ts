import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./load-config.js";
import { readRuntimeConfig } from "./runtime-config.js";

async function runtimeFrom(text: string) {
  const dir = await mkdtemp(join(tmpdir(), "docket-config-"));
  await writeFile(join(dir, "docket.yaml"), text);
  return () => readRuntimeConfig(loadConfig("docket.yaml", { cwd: dir }));
}

describe("sandbox.network as a filter", () => {
  it("becomes the project's rule layer, with fixed names and the ask timeout", async () => {
    const read = await runtimeFrom(`sandbox:
  network:
    allow: [registry.npmjs.org, "*.github.com"]
    ask: ["api.staging.example.com:8443"]
    deny: [gist.github.com]
    hosts: { Staging.Internal.: 10.0.0.5 }
    ask_timeout: 2m
`);
    expect(read().sandbox.network).toEqual({
      rules: [
        {
          name: "project",
          allow: ["registry.npmjs.org", "*.github.com"],
          ask: ["api.staging.example.com:8443"],
          deny: ["gist.github.com"],
        },
      ],
      hosts: { "staging.internal": "10.0.0.5" },
      askTimeoutMs: 120_000,
    });
  });

  it("still takes none, loopback and all", async () => {
    expect((await runtimeFrom("sandbox:\n  network: loopback\n"))().sandbox.network).toBe(
      "loopback",
    );
  });

  it("stops at load with the file, line and reason of a bad pattern, address or key", async () => {
    const bad = await runtimeFrom(`sandbox:
  mode: auto
  network:
    allow:
      - registry.npmjs.org
      - https://evil.example/path
`);
    expect(bad).toThrow(/docket\.yaml:6: sandbox\.network\.allow\.1: bad host pattern/);
    const address = await runtimeFrom(
      "sandbox:\n  network:\n    hosts:\n      staging: not-an-ip\n",
    );
    expect(address).toThrow(
      /docket\.yaml:4: sandbox\.network\.hosts\.staging: expected an IP address/,
    );
    const key = await runtimeFrom("sandbox:\n  network:\n    allowed: [x.org]\n");
    expect(key).toThrow(/docket\.yaml:2: sandbox\.network: Unrecognized key: "allowed"/);
  });
});

describe("docket init's network example", () => {
  it("loads as written once uncommented, in place of network: none", async () => {
    const { INITIAL_CONFIG } = await import("../cli/commands/init-command.js");
    const lines = INITIAL_CONFIG.split("\n");
    const start = lines.findIndex((line) => line.startsWith("  # network:"));
    const example: string[] = [];
    for (const line of lines.slice(start)) {
      if (!line.startsWith("  #")) break;
      example.push(line.replace(/^ {2}# /, "  "));
    }
    const text = INITIAL_CONFIG.replace(/^ {2}network: none.*$/m, example.join("\n"));
    const network = (await runtimeFrom(text))().sandbox.network;
    expect(network).toMatchObject({
      rules: [
        { name: "project", allow: ["registry.npmjs.org", "github.com", "codeload.github.com"] },
      ],
      askTimeoutMs: 60_000,
    });
  });
});
