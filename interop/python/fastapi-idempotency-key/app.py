"""fastapi-idempotency-key (PyPI) in front of the charge endpoint of ../ledger.py, on Starlette.

Set up as its README shows: IdempotencyMiddleware added to the app with its defaults (the
memory backend).
"""

from fastapi_idempotency_key import IdempotencyMiddleware
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

import ledger


async def charge(request):
    body = ledger.body_of(await request.body())
    answer = await ledger.charge_async(request.headers.get("idempotency-key"), body)
    return JSONResponse(answer, status_code=201)


async def charges(request):
    return JSONResponse(ledger.read_back(request.query_params.get("key")))


async def everything(request):
    return JSONResponse(ledger.ledger())


asgi = Starlette(
    routes=[
        Route("/charges", charge, methods=["POST"]),
        Route("/charges", charges, methods=["GET"]),
        Route("/ledger", everything, methods=["GET"]),
    ]
)
asgi.add_middleware(IdempotencyMiddleware)
