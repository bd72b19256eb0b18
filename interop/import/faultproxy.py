"""A loopback TCP proxy that loses one answer: `python faultproxy.py UPSTREAM_PORT [--drop N]`.

Every connection is forwarded to 127.0.0.1:UPSTREAM_PORT byte for byte, except the Nth (1 by
default): its request is forwarded, the service's answer is read and thrown away, and the
client's side is held open until the client gives up. That is the fault of order 5531: the
service did the work and answered, and the answer never arrived. The first line printed is
`listening on http://127.0.0.1:PORT`. Standard library only.
"""

import asyncio
import sys

COUNT = 0


async def pipe(reader, writer, drop):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if not drop:
                writer.write(data)
                await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        if not drop:
            writer.close()


async def handle(client_r, client_w, upstream, drop_at):
    global COUNT
    COUNT += 1
    drop = COUNT == drop_at
    up_r, up_w = await asyncio.open_connection("127.0.0.1", upstream)
    to_up = asyncio.create_task(pipe(client_r, up_w, False))
    back = asyncio.create_task(pipe(up_r, client_w, drop))
    await to_up
    back.cancel()
    client_w.close()
    up_w.close()


async def main():
    upstream = int(sys.argv[1])
    drop_at = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--drop" else 1
    server = await asyncio.start_server(lambda r, w: handle(r, w, upstream, drop_at), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    print(f"listening on http://127.0.0.1:{port}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
