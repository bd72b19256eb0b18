// duplicate-requests (npm) in front of the charge endpoint of ../ledger.js, on Express 4, set
// up as its README shows, with the request's id read from the Idempotency-Key header (its
// `property` option takes a function of the request) and its default store and expiry.
const express = require('express');
const duplicate = require('duplicate-requests').default;
const ledger = require('../ledger');

const app = express();
app.use(express.json());

app.post(
  '/charges',
  duplicate({ property: (req) => req.get('Idempotency-Key') }),
  async (req, res) => {
    res.status(201).json(await ledger.charge(ledger.keyOf(req.headers), req.body));
  },
);
app.get('/charges', (req, res) => res.json(ledger.readBack(req.query.key)));
app.get('/ledger', (req, res) => res.json(ledger.ledger()));

const server = app.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  ledger.announce(server.address().port);
});
