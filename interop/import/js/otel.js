// OpenTelemetry for one Node.js process, loaded before anything else (`node -r ./otel.js`):
// the SDK's tracer provider with a batch processor and the OTLP/HTTP exporter (JSON), and the
// HTTP instrumentation capturing the Idempotency-Key request header on client and server
// spans, with the stable HTTP semantic conventions. OTEL_SERVICE_NAME names the process;
// OTLP_URL is where spans go (the loopback receiver of receiver.js), and ZIPKIN_URL, when set,
// where the same spans go again through the Zipkin exporter (Zipkin v2 JSON).
const { NodeTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-node');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { ZipkinExporter } = require('@opentelemetry/exporter-zipkin');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');

process.env.OTEL_SEMCONV_STABILITY_OPT_IN = process.env.OTEL_SEMCONV_STABILITY_OPT_IN || 'http';
const exporter = new OTLPTraceExporter({ url: process.env.OTLP_URL });
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME || 'node' }),
  spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 200 })].concat(
    process.env.ZIPKIN_URL
      ? [new BatchSpanProcessor(new ZipkinExporter({ url: process.env.ZIPKIN_URL }), { scheduledDelayMillis: 200 })]
      : [],
  ),
});
provider.register();
registerInstrumentations({
  instrumentations: [
    new HttpInstrumentation({
      // The exporter's own requests are not traced.
      ignoreOutgoingRequestHook: (req) => /^\/(v1\/traces|api\/v2\/spans)/.test(String(req.path || '')),
      headersToSpanAttributes: {
        client: { requestHeaders: ['idempotency-key'], responseHeaders: ['idempotent-replayed'] },
        server: { requestHeaders: ['idempotency-key'], responseHeaders: ['idempotent-replayed'] },
      },
    }),
  ],
});

async function flush() {
  await provider.forceFlush();
  await provider.shutdown();
}
process.on('SIGTERM', () => flush().finally(() => process.exit(0)));
module.exports = { flush };
