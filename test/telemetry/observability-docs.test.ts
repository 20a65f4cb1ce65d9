import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { telemetrySectionSchema } from "../../src/config/telemetry-section.js";
import { call, turn, writeScriptFile } from "../loop/support/model-script.js";
import { tempDir } from "../loop/support/temp-dir.js";
import { startOtlpReceiver } from "../support/otlp-receiver.js";
import { runDocket } from "../support/run-docket.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const doc = readFileSync(join(root, "docs", "observability.md"), "utf8");
const yamlBlock = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(() => receiver.close());

async function runWith(yaml: string, env: NodeJS.ProcessEnv = {}) {
  const dir = await tempDir("docket-otel-cli-");
  await writeFile(join(dir, "notes.txt"), "hello\n");
  const script = await writeScriptFile(dir, [
    turn("Reading.", call("call_1", "read_file", { path: "notes.txt" })),
    turn("It says hello."),
  ]);
  await writeFile(join(dir, "docket.yaml"), `model: scripted:${script}\n${yaml}`);
  return runDocket(["run", "What do the notes say?"], {
    cwd: dir,
    env: { DOCKET_CONFIG: "", DOCKET_STORE: "", OTEL_EXPORTER_OTLP_ENDPOINT: "", ...env },
  });
}

describe("docs/observability.md", () => {
  it("its telemetry: block is valid, and docket run with it exports spans at exit", async () => {
    const section = parse(yamlBlock).telemetry;
    expect(telemetrySectionSchema.safeParse(section).success).toBe(true);
    const yaml = yamlBlock.replace("http://127.0.0.1:4318", receiver.url);
    const { code, stderr } = await runWith(yaml);
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(0);
    const names = receiver.spans.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(["invoke_agent", "execute_tool read_file"]));
    expect(names.filter((n) => n.startsWith("chat "))).toHaveLength(2);
    expect(receiver.spans[0]?.resource["service.name"]).toBe("support-desk");
    expect(receiver.requests.find((r) => r.path === "/v1/traces")?.headers["x-team"]).toBe(
      "support",
    );
    expect(receiver.points.some((p) => p.metric === "gen_ai.execute_tool.duration")).toBe(true);
  });

  it("OTEL_EXPORTER_OTLP_ENDPOINT alone turns it on; OTEL_SDK_DISABLED=true turns it off", async () => {
    const on = await runWith("", { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(on.code).toBe(0);
    expect(receiver.spans.map((s) => s.name)).toContain("execute_tool read_file");
    const before = receiver.requests.length;
    const off = await runWith("", {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SDK_DISABLED: "true",
    });
    expect(off.code).toBe(0);
    expect(receiver.requests.length).toBe(before);
  });
});
