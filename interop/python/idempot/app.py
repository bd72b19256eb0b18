"""idempot (PyPI) in front of the charge endpoint of ../ledger.py, on Flask.

Set up as its README shows: its @idempotent decorator on the view, with its defaults (the
memory backend, keys kept 24 h).
"""

import flask
from idempot.contrib.flask import idempotent

import ledger

wsgi = flask.Flask(__name__)


@wsgi.post("/charges")
@idempotent
def charge():
    body = ledger.body_of(flask.request.get_data())
    answer = ledger.charge_sync(flask.request.headers.get("Idempotency-Key"), body)
    # A Response, as the package's README returns: given Flask's (body, status) tuple, the
    # package tries to store the Response object as bytes and every keyed request fails.
    response = flask.jsonify(answer)
    response.status_code = 201
    return response


@wsgi.get("/charges")
def charges():
    return flask.jsonify(ledger.read_back(flask.request.args.get("key")))


@wsgi.get("/ledger")
def everything():
    return flask.jsonify(ledger.ledger())
