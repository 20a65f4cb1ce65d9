import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { turn, writeScriptFile } from "../loop/support/model-script.js";
import { tempDir } from "../loop/support/temp-dir.js";
import { installedCli, useInstalledCli } from "../support/installed-cli.js";
import { startOtlpReceiver } from "../support/otlp-receiver.js";

const exec = promisify(execFile);
const hooks = fileURLToPath(new URL("../fixtures/otel-load-hooks/register.mjs", import.meta.url));

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(() => receiver.close());
// The CLI as users install it, with the optional peers (the OpenTelemetry SDK among them).
useInstalledCli();

/** The installed `docket run`, with a hook that names every OpenTelemetry SDK module it loads. */
async function run(env: NodeJS.ProcessEnv): Promise<string> {
  const dir = await tempDir("docket-lazy-sdk-");
  const script = await writeScriptFile(dir, [turn("Hello.")]);
  await writeFile(join(dir, "docket.yaml"), `model: scripted:${script}\n`);
  const { stderr } = await exec(
    process.execPath,
    ["--import", hooks, await installedCli(), "run", "Hi."],
    { cwd: dir, env: { ...process.env, DOCKET_CONFIG: "", DOCKET_STORE: "", ...env } },
  );
  return stderr;
}

describe("the CLI and the OpenTelemetry SDK", () => {
  it("does not load the SDK when telemetry is off, and does when an endpoint is set", async () => {
    const off = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: "" });
    expect(off).not.toContain("loaded-otel-sdk");
    const on = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(on).toContain("loaded-otel-sdk @opentelemetry/sdk-trace-base");
    expect(receiver.spans.map((s) => s.name)).toContain("invoke_agent");
  });
});
