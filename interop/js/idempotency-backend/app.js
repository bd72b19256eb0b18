// idempotency-backend (npm) in front of the charge endpoint of ../ledger.js, on Fastify 5, set
// up as its README shows: its hook on the route, and the handler saving its answer in the
// session the hook made. The package keeps its store in ./idempotency_store.json, in the
// folder the app is started from.
const Fastify = require('fastify');
const IdempotencyFastify = require('idempotency-backend/fastify').default;
const ledger = require('../ledger');

const app = Fastify();

app.post('/charges', { onRequest: IdempotencyFastify }, async (req, reply) => {
  const answer = await ledger.charge(ledger.keyOf(req.headers), req.body);
  await req.idempotencySession.SaveResponse(answer);
  return reply.status(201).send(answer);
});
app.get('/charges', async (req) => ledger.readBack(req.query.key));
app.get('/ledger', async () => ledger.ledger());

app.listen({ port: Number(process.env.PORT || 0), host: '127.0.0.1' }).then(() => {
  ledger.announce(app.server.address().port);
});
