// The charge endpoint every Node.js app of interop/ puts behind its middleware, the same in
// each: a new charge takes HOLD_MS (300 ms by default), so requests sent together overlap on
// the server; every charge made goes into a ledger in memory, which the drill reads back.
//
//   POST /charges         the app's route calls charge(); 201 {"id", "order", "amount", ...}
//   GET  /charges?key=K   the charges made under key K (quoted or bare), for --read-back
//   GET  /ledger          every charge made, with the key as it came and the body, for tests
const HOLD_MS = Number(process.env.HOLD_MS || 300);
const started = Date.now();
const charges = [];

// The Idempotency-Key header as it came, or null.
function keyOf(headers) {
  const value = headers['idempotency-key'];
  return typeof value === 'string' ? value : null;
}

// The key with one pair of surrounding double quotes taken off: the read-back finds a charge
// under the key however it was written.
function bare(key) {
  return key && key.length >= 2 && key.startsWith('"') && key.endsWith('"') ? key.slice(1, -1) : key;
}

// Makes a charge: holds HOLD_MS, then writes it to the ledger and returns the answer's body.
async function charge(key, body) {
  const at = Date.now() - started;
  await new Promise((done) => setTimeout(done, HOLD_MS));
  const order = body && typeof body === 'object' ? body.order : undefined;
  const amount = body && typeof body === 'object' ? body.amount : undefined;
  const made = {
    id: `ch_${charges.length + 1}`,
    key,
    order,
    amount,
    body: body === undefined ? null : body,
    started_ms: at,
    charged_ms: Date.now() - started,
  };
  charges.push(made);
  return { id: made.id, order, amount, status: 'charged' };
}

// The read-back of GET /charges?key=K (all charges when no key is asked for).
function readBack(key) {
  const mine = key == null ? charges : charges.filter((c) => bare(c.key) === bare(key));
  return {
    key: key == null ? null : key,
    count: mine.length,
    charges: mine.map((c) => ({ id: c.id, order: c.order, amount: c.amount })),
  };
}

// Every charge, for GET /ledger.
function ledger() {
  return { hold_ms: HOLD_MS, count: charges.length, charges };
}

// The line interop/run and the tests wait for.
function announce(port) {
  console.log(`listening on http://127.0.0.1:${port}`);
}

module.exports = { HOLD_MS, keyOf, charge, readBack, ledger, announce };
