// A charge endpoint behind the npm middleware express-idempotency, for `idem drill`.
// Each new charge takes HOLD_MS (300 ms by default), so overlapping requests overlap.
const express = require('express');
const { idempotency, getSharedIdempotencyService } = require('express-idempotency');

const app = express();
app.use(express.json());
let charges = 0;

app.post('/charges', idempotency(), async (req, res) => {
  if (getSharedIdempotencyService().isHit(req)) {
    return;
  }
  await new Promise((done) => setTimeout(done, Number(process.env.HOLD_MS || 300)));
  charges += 1;
  res.status(201).json({ id: `ch_${charges}`, amount: req.body && req.body.amount });
});

app.get('/charges/count', (req, res) => res.json({ charges }));

const server = app.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
