"""A call's deadline reaches the server as gRPC's ``grpc-timeout``, rounded up to a unit that
grows with it: the server must read it as possibly that much later than the client's, or a
search cut to it answers after the client has given up (a 1,501 s deadline came 9 s late)."""
import asyncio
import struct
import threading

import grpc
import pytest

from fagin.server.request import timeout_rounding_ms

# Client deadlines in seconds, each just past a whole unit so that gRPC rounds it up by
# almost one unit: ms, 10 ms, 100 ms, s, 10 s, 100 s, 10 min.
DEADLINES_S = (0.5001, 5.0001, 50.001, 500.01, 1501.0, 15001.0, 100_001.0)


@pytest.fixture(scope="module")
def remaining_server():
    """A gRPC server whose one method answers the time the call has left as the server sees it."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    port, stopping = [], []

    async def remaining(request, context):
        return struct.pack("<d", context.time_remaining())

    async def main():
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
            "probe.Deadline", {"Remaining": grpc.unary_unary_rpc_method_handler(remaining)}),))
        port.append(server.add_insecure_port("127.0.0.1:0"))
        await server.start()
        stopping.append(asyncio.Event())
        ready.set()
        await stopping[0].wait()
        await server.stop(0)

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    assert ready.wait(10)
    channel = grpc.insecure_channel(f"127.0.0.1:{port[0]}")
    yield channel.unary_unary("/probe.Deadline/Remaining")
    channel.close()
    loop.call_soon_threadsafe(stopping[0].set)
    thread.join(10)


@pytest.mark.parametrize("deadline_s", DEADLINES_S)
def test_the_server_never_reads_a_deadline_later_than_the_clients(remaining_server, deadline_s):
    (seen_s,) = struct.unpack("<d", remaining_server(b"", timeout=deadline_s))
    assert seen_s > deadline_s - 1, "the deadline arrived earlier than the client's"
    latest_s = seen_s - timeout_rounding_ms(seen_s * 1000) / 1000
    # The server's reading of the client's deadline is never later than it ...
    assert latest_s <= deadline_s, f"read as {latest_s:.3f} s, the client's was {deadline_s} s"
    # ... and early by no more than about the unit (a tenth of the deadline at most), and the
    # call's way to the server (a loaded machine's stall of a quarter second at most).
    assert deadline_s - latest_s <= max(0.05, deadline_s / 10) + 0.25
