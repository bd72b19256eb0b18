// The checkout: pays order 5531 once through axios with axios-retry (3 attempts, a 2 s
// timeout on each, 500 ms between them, retrying a timeout, a network error, a 409 or a 5xx),
// every attempt carrying the order's Idempotency-Key, all inside one span for the checkout.
// Run with `node -r ./otel.js client.js URL`. Prints what it concluded.
const otel = require('./otel');
const { trace } = require('@opentelemetry/api');
const axios = require('axios');
const axiosRetry = require('axios-retry').default;

const url = process.argv[2];
const client = axios.create({ timeout: 2000 });
axiosRetry(client, {
  retries: 2,
  retryDelay: () => 500,
  shouldResetTimeout: true,
  retryCondition: (e) => !e.response || e.response.status === 409 || e.response.status >= 500,
});

async function main() {
  const tracer = trace.getTracer('checkout');
  await tracer.startActiveSpan('checkout order 5531', async (span) => {
    try {
      const res = await client.post(
        url,
        { order: '5531', amount: '$48.60' },
        { headers: { 'Idempotency-Key': 'K7Q4' } },
      );
      console.log(`paid: ${res.status} ${JSON.stringify(res.data)}`);
    } catch (e) {
      console.log(`not paid: ${e.message}`);
    } finally {
      span.end();
    }
  });
  await otel.flush();
}
main();
