"""A real fagin server on a free port, in a background thread (the session fixtures are in tests/conftest.py)."""
import asyncio
import queue
import threading

from fagin.server import loop as server_loop
from fagin.server.app import Server


class RunningServer:
    def __init__(self, config):
        self.loop = server_loop.new_event_loop()     # the loop `fagin serve` runs on
        self.grace = 1                               # seconds the calls under way get at stop()
        started = threading.Event()
        failure = []

        def run():
            asyncio.set_event_loop(self.loop)

            async def main():
                self.stopping = asyncio.Event()
                try:
                    self.server = await Server.start(config)
                except Exception as e:     # surfaced to the fixture below
                    failure.append(e)
                    return
                finally:
                    started.set()
                # The server is stopped from its own loop: grpc.aio's stop()
                # does not complete when scheduled from another thread.
                await self.stopping.wait()
                await self.server.stop(grace=self.grace)

            self.loop.run_until_complete(main())

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        started.wait(30)
        if failure:
            raise failure[0]
        self.port = self.server.port
        self.target = f"127.0.0.1:{self.port}"

    def stop(self, grace=1):
        self.grace = grace
        self.loop.call_soon_threadsafe(self.stopping.set)
        self.thread.join(30)
        assert not self.thread.is_alive(), "server did not stop"


TEST_CONFIG = dict(host="127.0.0.1", port=0, workers=2, max_iterations=200_000, max_time_ms=5_000,
                   default_iterations=500, max_message_bytes=256 * 1024, grace_seconds=1,
                   deadline_margin_ms=150,   # generous: CI machines are busy
                   http_port=0)   # the default (8080) would collide between test workers; tests that want it pick a free one


def line_reader(stream, timeout=30):
    """A function that returns `stream`'s next line, or raises queue.Empty after `timeout` s:
    a server that never prints the line a test waits for fails the test instead of hanging it."""
    lines = queue.Queue()

    def pump():
        for line in stream:
            lines.put(line)
        lines.put("")

    threading.Thread(target=pump, daemon=True).start()
    return lambda: lines.get(timeout=timeout)
