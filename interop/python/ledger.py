"""The charge endpoint every Python app of interop/ puts behind its middleware, the same in each.

A new charge takes HOLD_MS (300 ms by default), so requests sent together overlap on the
server; every charge made goes into a ledger in memory, which the drill reads back:

    POST /charges         the app's route calls charge(); 201 {"id", "order", "amount", ...}
    GET  /charges?key=K   the charges made under key K (quoted or bare), for --read-back
    GET  /ledger          every charge made, with the key as it came and the body, for tests

The same as ../js/ledger.js. Threaded servers (WSGI) call charge_sync, event loops charge_async.
"""

import asyncio
import json
import os
import threading
import time

HOLD_MS = int(os.environ.get("HOLD_MS", "300"))
_STARTED = time.monotonic()
_LOCK = threading.Lock()
_CHARGES = []


def _now_ms():
    return int((time.monotonic() - _STARTED) * 1000)


def _bare(key):
    if key is not None and len(key) >= 2 and key.startswith('"') and key.endswith('"'):
        return key[1:-1]
    return key


def body_of(raw):
    """The request's body as JSON, or its text when it is not JSON (None when empty)."""
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw


def _record(key, body, started_ms):
    order = body.get("order") if isinstance(body, dict) else None
    amount = body.get("amount") if isinstance(body, dict) else None
    with _LOCK:
        made = {
            "id": f"ch_{len(_CHARGES) + 1}",
            "key": key,
            "order": order,
            "amount": amount,
            "body": body,
            "started_ms": started_ms,
            "charged_ms": _now_ms(),
        }
        _CHARGES.append(made)
    return {"id": made["id"], "order": order, "amount": amount, "status": "charged"}


def charge_sync(key, body):
    """Makes a charge on a thread: holds HOLD_MS, then writes it to the ledger."""
    started_ms = _now_ms()
    time.sleep(HOLD_MS / 1000)
    return _record(key, body, started_ms)


async def charge_async(key, body):
    """Makes a charge on an event loop: holds HOLD_MS, then writes it to the ledger."""
    started_ms = _now_ms()
    await asyncio.sleep(HOLD_MS / 1000)
    return _record(key, body, started_ms)


def read_back(key):
    """The read-back of GET /charges?key=K (every charge when no key is asked for)."""
    with _LOCK:
        mine = [c for c in _CHARGES if key is None or _bare(c["key"]) == _bare(key)]
        return {
            "key": key,
            "count": len(mine),
            "charges": [{"id": c["id"], "order": c["order"], "amount": c["amount"]} for c in mine],
        }


def ledger():
    """Every charge, for GET /ledger."""
    with _LOCK:
        return {"hold_ms": HOLD_MS, "count": len(_CHARGES), "charges": list(_CHARGES)}
