// A trace of something else: a nightly report job, traced by the same SDK, with spans of its
// own and no HTTP request. `idem import` must refuse it and say what it looked for.
const otel = require('./otel');
const { trace } = require('@opentelemetry/api');

async function main() {
  const tracer = trace.getTracer('report');
  await tracer.startActiveSpan('nightly report', async (job) => {
    for (const step of ['read orders', 'sum by day', 'write csv']) {
      const span = tracer.startSpan(step);
      span.setAttribute('report.rows', 42);
      await new Promise((done) => setTimeout(done, 20));
      span.end();
    }
    job.end();
  });
  await otel.flush();
}
main();
