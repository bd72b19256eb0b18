"""A charge endpoint behind the PyPI middleware fastapi-idempotency-key, for `idem drill`.

Each new charge takes HOLD_MS (300 ms by default), so overlapping requests overlap.
"""

import asyncio
import json
import os

from fastapi_idempotency_key import IdempotencyMiddleware
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

CHARGES = {"n": 0}


async def charge(request):
    body = await request.body()
    await asyncio.sleep(int(os.environ.get("HOLD_MS", "300")) / 1000)
    CHARGES["n"] += 1
    amount = json.loads(body or b"{}").get("amount")
    return JSONResponse({"id": f"ch_{CHARGES['n']}", "amount": amount}, status_code=201)


async def count(request):
    return JSONResponse({"charges": CHARGES["n"]})


app = Starlette(
    routes=[
        Route("/charges", charge, methods=["POST"]),
        Route("/charges/count", count, methods=["GET"]),
    ]
)
app.add_middleware(IdempotencyMiddleware)
