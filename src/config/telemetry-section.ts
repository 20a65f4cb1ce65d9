import { z } from "zod";

/**
 * The `telemetry:` section of docket.yaml: where the CLI sends OpenTelemetry spans and metrics
 * (OTLP over HTTP, JSON). Header values may use `${VAR}` like every string in the file.
 *
 * @example
 * ```ts
 * telemetrySectionSchema.parse({ otlp_endpoint: "http://127.0.0.1:4318", record_content: false });
 * ```
 */
export const telemetrySectionSchema = z.strictObject({
  otlp_endpoint: z.url().optional(),
  headers: z.record(z.string().min(1), z.string()).optional(),
  service_name: z.string().min(1).max(200).optional(),
  record_content: z.boolean().optional(),
});

/** The checked `telemetry:` section. */
export type TelemetrySection = z.output<typeof telemetrySectionSchema>;

/** What the CLI starts the SDK with; undefined when telemetry is off. */
export interface TelemetryConfig {
  readonly endpoint: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly serviceName: string;
  readonly recordContent: boolean;
}

/**
 * Decide whether and where telemetry goes: `telemetry.otlp_endpoint`, else the standard
 * `OTEL_EXPORTER_OTLP_ENDPOINT`; `OTEL_SDK_DISABLED=true` turns it off whatever the file says.
 * `OTEL_SERVICE_NAME` names the service when the file does not.
 *
 * @example
 * ```ts
 * telemetryConfig({}, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })?.endpoint;
 * // "http://collector:4318"
 * ```
 */
export function telemetryConfig(
  section: TelemetrySection = {},
  env: NodeJS.ProcessEnv = process.env,
): TelemetryConfig | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return undefined;
  const endpoint = section.otlp_endpoint ?? env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint) return undefined;
  return {
    endpoint,
    headers: section.headers ?? {},
    serviceName: section.service_name ?? env.OTEL_SERVICE_NAME?.trim() ?? "docket",
    recordContent: section.record_content === true,
  };
}
