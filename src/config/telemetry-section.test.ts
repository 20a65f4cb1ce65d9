import { describe, expect, it } from "vitest";
import { telemetryConfig, telemetrySectionSchema } from "./telemetry-section.js";

describe("the telemetry: section", () => {
  it("is off with neither the file nor the environment naming an endpoint", () => {
    expect(telemetryConfig({}, {})).toBeUndefined();
    expect(telemetryConfig(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "  " })).toBeUndefined();
  });

  it("takes the file's endpoint over OTEL_EXPORTER_OTLP_ENDPOINT, content off by default", () => {
    expect(
      telemetryConfig(
        { otlp_endpoint: "http://collector:4318", headers: { "x-team": "desk" } },
        { OTEL_EXPORTER_OTLP_ENDPOINT: "http://other:4318", OTEL_SERVICE_NAME: "desk-agent" },
      ),
    ).toEqual({
      endpoint: "http://collector:4318",
      headers: { "x-team": "desk" },
      serviceName: "desk-agent",
      recordContent: false,
    });
    expect(
      telemetryConfig({}, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://other:4318" })?.endpoint,
    ).toBe("http://other:4318");
  });

  it("is turned off by OTEL_SDK_DISABLED=true whatever the file says", () => {
    expect(
      telemetryConfig({ otlp_endpoint: "http://collector:4318" }, { OTEL_SDK_DISABLED: "TRUE" }),
    ).toBeUndefined();
  });

  it("refuses unknown keys and an endpoint that is not a URL", () => {
    expect(telemetrySectionSchema.safeParse({ endpoint: "http://x" }).success).toBe(false);
    expect(telemetrySectionSchema.safeParse({ otlp_endpoint: "collector" }).success).toBe(false);
    expect(telemetrySectionSchema.safeParse({ record_content: "yes" }).success).toBe(false);
  });
});
