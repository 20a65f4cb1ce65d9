import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** An OTLP/JSON attribute value. */
type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

/** A span as received, its attributes flattened. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly status: { code?: number; message?: string };
  readonly attributes: Record<string, unknown>;
  readonly resource: Record<string, unknown>;
}

/** One metric data point as received. */
export interface ReceivedPoint {
  readonly metric: string;
  readonly attributes: Record<string, unknown>;
  /** Histogram count or sum value. */
  readonly count?: number;
  readonly sum?: number;
  readonly value?: number;
}

function plainValue(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plainValue);
  return undefined;
}

function flatten(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, plainValue(kv.value)]));
}

/**
 * An OTLP/HTTP collector in this process on 127.0.0.1, JSON encoding: what the real exporters
 * send arrives here, parsed. For tests.
 *
 * @example
 * ```ts
 * const receiver = await startOtlpReceiver();
 * // … export to receiver.url …
 * await receiver.close();
 * ```
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const points: ReceivedPoint[] = [];
  const requests: { path: string; contentType: string; headers: Record<string, unknown> }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "";
      requests.push({
        path,
        contentType: String(request.headers["content-type"]),
        headers: request.headers,
      });
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      if (path === "/v1/traces") collectSpans(body, spans);
      if (path === "/v1/metrics") collectPoints(body, points);
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    points,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: the OTLP/JSON body as the exporter sent it
function collectSpans(body: any, into: ReceivedSpan[]): void {
  for (const rs of body.resourceSpans ?? []) {
    const resource = flatten(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const span of ss.spans ?? []) {
        into.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? "",
          name: span.name,
          kind: span.kind,
          status: span.status ?? {},
          attributes: flatten(span.attributes),
          resource,
        });
      }
    }
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the OTLP/JSON body as the exporter sent it
function collectPoints(body: any, into: ReceivedPoint[]): void {
  for (const rm of body.resourceMetrics ?? []) {
    for (const sm of rm.scopeMetrics ?? []) {
      for (const metric of sm.metrics ?? []) {
        const data = metric.histogram ?? metric.sum ?? metric.gauge;
        for (const point of data?.dataPoints ?? []) {
          into.push({
            metric: metric.name,
            attributes: flatten(point.attributes),
            ...(point.count !== undefined ? { count: Number(point.count) } : {}),
            ...(point.sum !== undefined ? { sum: Number(point.sum) } : {}),
            ...(point.asInt !== undefined ? { value: Number(point.asInt) } : {}),
            ...(point.asDouble !== undefined ? { value: Number(point.asDouble) } : {}),
          });
        }
      }
    }
  }
}
