"""fastapi-idempotency (PyPI) in front of the charge endpoint of ../ledger.py, on FastAPI.

Set up as its README shows: IdempotencyMiddleware added with its defaults (the in-memory
store, keys kept 24 h).
"""

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi_idempotency import IdempotencyMiddleware

import ledger

asgi = FastAPI()
asgi.add_middleware(IdempotencyMiddleware)


@asgi.post("/charges")
async def charge(request: Request):
    body = ledger.body_of(await request.body())
    answer = await ledger.charge_async(request.headers.get("idempotency-key"), body)
    return JSONResponse(answer, status_code=201)


@asgi.get("/charges")
async def charges(key: str | None = None):
    return ledger.read_back(key)


@asgi.get("/ledger")
async def everything():
    return ledger.ledger()
