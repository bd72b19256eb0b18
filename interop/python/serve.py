"""Serves one interop app on a free loopback port: `python serve.py APP.py`.

APP.py defines `asgi` (served by uvicorn) or `wsgi` (served by the standard library's threaded
WSGI server). The port is bound here, before the app is loaded, and the first line printed is
`listening on http://127.0.0.1:PORT`, which interop/run and the tests wait for.
"""

import importlib.util
import os
import socket
import socketserver
import sys
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass


class _ThreadedWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    request_queue_size = 64


def _load(path):
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location("interop_app", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: serve.py APP.py")
    port = int(os.environ.get("PORT", "0"))
    module = _load(sys.argv[1])
    if hasattr(module, "wsgi"):
        server = _ThreadedWSGIServer(("127.0.0.1", port), _Quiet)
        server.set_app(module.wsgi)
        print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
        server.serve_forever()
        return
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    config = uvicorn.Config(module.asgi, log_level="warning", lifespan="off", access_log=False)
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
