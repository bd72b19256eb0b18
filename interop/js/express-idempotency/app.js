// express-idempotency (npm) in front of the charge endpoint of ../ledger.js, on Express 4,
// set up as its README shows: the middleware on the route, and the handler asking isHit()
// so that a request the middleware answered is not charged.
const express = require('express');
const { idempotency, getSharedIdempotencyService } = require('express-idempotency');
const ledger = require('../ledger');

const app = express();
app.use(express.json());

app.post('/charges', idempotency(), async (req, res) => {
  if (getSharedIdempotencyService().isHit(req)) {
    return;
  }
  res.status(201).json(await ledger.charge(ledger.keyOf(req.headers), req.body));
});
app.get('/charges', (req, res) => res.json(ledger.readBack(req.query.key)));
app.get('/ledger', (req, res) => res.json(ledger.ledger()));

const server = app.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  ledger.announce(server.address().port);
});
