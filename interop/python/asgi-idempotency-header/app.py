"""asgi-idempotency-header (PyPI) in front of the charge endpoint of ../ledger.py, on FastAPI.

Set up as its README shows: IdempotencyHeaderMiddleware with its in-memory backend and its
defaults (keys kept 24 h, any key format). Its package imports FastAPI and redis even for the
memory backend, so both are installed.
"""

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from idempotency_header_middleware import IdempotencyHeaderMiddleware
from idempotency_header_middleware.backends import MemoryBackend

import ledger

asgi = FastAPI()
asgi.add_middleware(IdempotencyHeaderMiddleware, backend=MemoryBackend())


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
