// @node-idempotency/nestjs (npm) in front of the charge endpoint of ../ledger.js, on NestJS 10
// over Express, set up as its README shows: NodeIdempotencyModule with the memory store, and
// the @Idempotent() decorator on the charge route. Plain JavaScript, so the decorators are
// applied by hand.
require('reflect-metadata');
const { Module, Controller, Post, Get, Req, HttpCode } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { NodeIdempotencyModule, Idempotent } = require('@node-idempotency/nestjs');
const ledger = require('../ledger');

class ChargesController {
  async create(req) {
    return ledger.charge(ledger.keyOf(req.headers), req.body);
  }

  list(req) {
    return ledger.readBack(req.query.key);
  }

  all() {
    return ledger.ledger();
  }
}

function method(name, ...decorators) {
  const descriptor = Object.getOwnPropertyDescriptor(ChargesController.prototype, name);
  for (const decorate of decorators.reverse()) {
    decorate(ChargesController.prototype, name, descriptor);
  }
  Object.defineProperty(ChargesController.prototype, name, descriptor);
}

Req()(ChargesController.prototype, 'create', 0);
Req()(ChargesController.prototype, 'list', 0);
method('create', Post('charges'), HttpCode(201), Idempotent());
method('list', Get('charges'));
method('all', Get('ledger'));
Controller()(ChargesController);

class AppModule {}
Module({
  imports: [NodeIdempotencyModule.forRootAsync({ storage: { adapter: 'memory' } })],
  controllers: [ChargesController],
})(AppModule);

async function main() {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  await app.listen(Number(process.env.PORT || 0), '127.0.0.1');
  ledger.announce(app.getHttpServer().address().port);
}
main();
