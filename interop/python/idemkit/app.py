"""idemkit (PyPI) in front of the charge endpoint of ../ledger.py, on Litestar.

Its ASGI IdempotencyMiddleware with its in-memory backend, given to Litestar as route
middleware; one tenant (scope_mode single_tenant, since there are no users to scope keys to),
otherwise its defaults.
"""

from idemkit import HttpConfig, IdempotencyMiddleware, InMemoryBackend
from litestar import Litestar, Request, get, post
from litestar.middleware import DefineMiddleware
from litestar.response import Response

import ledger

BACKEND = InMemoryBackend()


@post("/charges", status_code=201)
async def charge(request: Request) -> Response:
    body = ledger.body_of(await request.body())
    answer = await ledger.charge_async(request.headers.get("idempotency-key"), body)
    return Response(answer, status_code=201)


@get("/charges")
async def charges(key: str | None = None) -> dict:
    return ledger.read_back(key)


@get("/ledger")
async def everything() -> dict:
    return ledger.ledger()


asgi = Litestar(
    route_handlers=[charge, charges, everything],
    middleware=[
        DefineMiddleware(
            IdempotencyMiddleware,
            backend=BACKEND,
            config=HttpConfig(scope_mode="single_tenant"),
        )
    ],
)
