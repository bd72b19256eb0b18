// A loopback receiver: every OTLP/HTTP JSON body (POST /v1/traces) is appended to the file
// named by OUT as one line, as the collector's file exporter writes its JSON lines, and every
// Zipkin v2 body (POST /api/v2/spans, a JSON list of spans) to ZIPKIN_OUT, one list a line.
const http = require('http');
const fs = require('fs');

const out = process.env.OUT;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (req.method === 'POST' && req.url === '/v1/traces') {
      // One request a line: the body as the exporter sent it, compacted.
      fs.appendFileSync(out, JSON.stringify(JSON.parse(body)) + '\n');
    } else if (req.method === 'POST' && req.url === '/api/v2/spans' && process.env.ZIPKIN_OUT) {
      fs.appendFileSync(process.env.ZIPKIN_OUT, JSON.stringify(JSON.parse(body)) + '\n');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
});
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
