import {
  type Counter,
  createNoopMeter,
  type Histogram,
  type MeterProvider,
  metrics,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { METRIC, SCOPE_NAME } from "./semconv.js";

/** How docket reports to OpenTelemetry. Every field has a default. */
export interface TelemetryOptions {
  /** Default: the global one (`trace.setGlobalTracerProvider`), a no-op until an SDK registers. */
  readonly tracerProvider?: TracerProvider;
  /** Default: the global one, as it is when the checkpoint or harness is created. */
  readonly meterProvider?: MeterProvider;
  /**
   * Put argument and result texts on `execute_tool` spans. Default false: they may hold
   * anything the tools read, and a trace backend is rarely where secrets should go.
   */
  readonly recordContent?: boolean;
}

/** The instruments docket records to; absent when no meter provider is registered. */
export interface Instruments {
  readonly operationDuration: Histogram;
  readonly tokenUsage: Histogram;
  readonly toolDuration: Histogram;
  readonly refusals: Counter;
}

/** Resolved telemetry: a tracer, the instruments (if any) and the content switch. */
export interface Telemetry {
  readonly tracer: Tracer;
  readonly instruments: Instruments | undefined;
  readonly recordContent: boolean;
}

const NOOP_METER = createNoopMeter();

/**
 * Resolve telemetry options. The tracer is a proxy, so an SDK registered later still gets the
 * spans; the meter is looked up now, and with none registered no instrument exists, so the
 * checkpoint builds no metric attributes at all.
 *
 * @example
 * ```ts
 * const telemetry = resolveTelemetry({ recordContent: false });
 * telemetry.tracer.startSpan("execute_tool echo").end();
 * ```
 */
export function resolveTelemetry({
  tracerProvider,
  meterProvider,
  recordContent = false,
}: TelemetryOptions = {}): Telemetry {
  const tracer = (tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE_NAME);
  const meter = (meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE_NAME);
  return {
    tracer,
    instruments: meter === NOOP_METER ? undefined : createInstruments(meter),
    recordContent,
  };
}

function createInstruments(meter: ReturnType<typeof createNoopMeter>): Instruments {
  // Bucket boundaries from the GenAI conventions' advice (seconds, tokens).
  const seconds = [
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
  ];
  return {
    operationDuration: meter.createHistogram(METRIC.operationDuration, {
      unit: "s",
      description: "GenAI operation duration.",
      advice: { explicitBucketBoundaries: seconds },
    }),
    tokenUsage: meter.createHistogram(METRIC.tokenUsage, {
      unit: "{token}",
      description: "Number of input and output tokens used.",
      advice: {
        explicitBucketBoundaries: [
          1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
        ],
      },
    }),
    toolDuration: meter.createHistogram(METRIC.toolDuration, {
      unit: "s",
      description: "Duration of a tool call through the checkpoint, by tool, decision and status.",
      advice: {
        explicitBucketBoundaries: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60],
      },
    }),
    refusals: meter.createCounter(METRIC.refusals, {
      unit: "{call}",
      description: "Tool calls refused by the checkpoint, by tool and reason.",
    }),
  };
}
