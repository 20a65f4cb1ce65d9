import { metrics, trace } from "@opentelemetry/api";
import { importOptional } from "../shared/import-package.js";
import type { TelemetryOptions } from "../telemetry/telemetry.js";

/** Where and how the CLI exports spans and metrics. */
export interface TelemetrySettings {
  /** The OTLP/HTTP base URL; `/v1/traces` and `/v1/metrics` are appended. */
  readonly endpoint: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly serviceName?: string;
  readonly recordContent?: boolean;
  /** How often metrics are pushed, in ms. Default 60 s; they are also pushed at shutdown. */
  readonly metricIntervalMs?: number;
  /** Make the providers the global ones (the CLI does; tests pass them to the harness). */
  readonly register?: boolean;
}

/** A started SDK: the options to hand the harness or gateway, and its shutdown. */
export interface StartedTelemetry {
  readonly options: TelemetryOptions;
  /** Export what is buffered and stop. Never throws; resolves within the exporters' timeout. */
  shutdown(): Promise<void>;
}

/**
 * Start the OpenTelemetry SDK with OTLP/HTTP (JSON) exporters for traces and metrics. The SDK
 * and exporters are optional peers, imported here when telemetry is configured; a missing one
 * stops with a `package_missing` error that names it.
 *
 * @example
 * ```ts
 * const started = await startTelemetry({ endpoint: "http://127.0.0.1:4318", serviceName: "docket" });
 * // … createHarness({ …, telemetry: started.options }) …
 * await started.shutdown();
 * ```
 */
export async function startTelemetry({
  endpoint,
  headers = {},
  serviceName = "docket",
  recordContent = false,
  metricIntervalMs = 60_000,
  register = false,
}: TelemetrySettings): Promise<StartedTelemetry> {
  // Optional peers, imported by name (importOptional): never inlined into the CLI's bundle,
  // whose interop once lost the CommonJS packages' exports, and never required by docket alone.
  const neededFor = "Exporting telemetry (telemetry.otlp_endpoint, OTEL_EXPORTER_OTLP_ENDPOINT)";
  const [traceSdk, metricsSdk, resources, traceExporter, metricExporter] = await Promise.all([
    importOptional<typeof import("@opentelemetry/sdk-trace-base")>(
      "@opentelemetry/sdk-trace-base",
      { neededFor },
    ),
    importOptional<typeof import("@opentelemetry/sdk-metrics")>("@opentelemetry/sdk-metrics", {
      neededFor,
    }),
    importOptional<typeof import("@opentelemetry/resources")>("@opentelemetry/resources", {
      neededFor,
    }),
    importOptional<typeof import("@opentelemetry/exporter-trace-otlp-http")>(
      "@opentelemetry/exporter-trace-otlp-http",
      { neededFor },
    ),
    importOptional<typeof import("@opentelemetry/exporter-metrics-otlp-http")>(
      "@opentelemetry/exporter-metrics-otlp-http",
      { neededFor },
    ),
  ]);
  const base = endpoint.replace(/\/+$/, "");
  const resource = resources.resourceFromAttributes({ "service.name": serviceName });
  const tracerProvider = new traceSdk.BasicTracerProvider({
    resource,
    spanProcessors: [
      new traceSdk.BatchSpanProcessor(
        new traceExporter.OTLPTraceExporter({ url: `${base}/v1/traces`, headers: { ...headers } }),
      ),
    ],
  });
  const meterProvider = new metricsSdk.MeterProvider({
    resource,
    readers: [
      new metricsSdk.PeriodicExportingMetricReader({
        exporter: new metricExporter.OTLPMetricExporter({
          url: `${base}/v1/metrics`,
          headers: { ...headers },
        }),
        exportIntervalMillis: metricIntervalMs,
      }),
    ],
  });
  if (register) {
    trace.setGlobalTracerProvider(tracerProvider);
    metrics.setGlobalMeterProvider(meterProvider);
  }
  let stopped: Promise<void> | undefined;
  return {
    options: { tracerProvider, meterProvider, recordContent },
    shutdown() {
      stopped ??= Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]).then(
        () => {
          if (register) {
            trace.disable();
            metrics.disable();
          }
        },
      );
      return stopped;
    },
  };
}
