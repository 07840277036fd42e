"""The server's event loop, which tells the service when it has been idle.

A search small enough to run on the event loop's thread (``inline_search_ms``)
saves the hand-off to a worker and back, but only while the server is
otherwise idle: under a stream of small calls, searches run back to back on
the loop would leave the worker threads idle and serialise every search on
one core.  Calls that arrive while the loop runs a search are invisible to
the service (they wait in gRPC until the loop is free), so the service cannot
count them; the loop's selector can tell, though.  After a search on the
loop, the loop either finds work already waiting (its next wait for I/O
returns at once) or waits for the next call: only in the second case was the
server idle, and the next small search may run on the loop again.
"""
from __future__ import annotations

import asyncio
import selectors
import time
import weakref

#: A wait for I/O this long or longer is the loop idling: one that finds events already
#: there returns within a few microseconds.
IDLE_WAIT_S = 50e-6


class IdleWatchingSelector(selectors.DefaultSelector):
    """The default selector, counting the waits in which the loop had nothing to do
    (``idle_waits``): it asked to wait and no event was there for ``IDLE_WAIT_S``."""

    def __init__(self):
        super().__init__()
        self.idle_waits = 0

    def select(self, timeout=None):
        if timeout is not None and timeout <= 0:
            return super().select(timeout)          # a poll: the loop has work in hand
        start = time.perf_counter()
        events = super().select(timeout)
        if not events or time.perf_counter() - start >= IDLE_WAIT_S:
            self.idle_waits += 1
        return events


_WATCHES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def new_event_loop() -> asyncio.AbstractEventLoop:
    """An event loop whose idle waits the service can read (``idle_watch``)."""
    selector = IdleWatchingSelector()
    loop = asyncio.SelectorEventLoop(selector)
    _WATCHES[loop] = selector
    return loop


def idle_watch(loop) -> IdleWatchingSelector | None:
    """The selector counting ``loop``'s idle waits, or None for a loop not made by
    :func:`new_event_loop` (whose service then runs every search in the workers)."""
    return _WATCHES.get(loop)


def run(main):
    """``asyncio.run(main)`` on a loop from :func:`new_event_loop`."""
    if hasattr(asyncio, "Runner"):                  # Python 3.11+
        with asyncio.Runner(loop_factory=new_event_loop) as runner:
            return runner.run(main)
    loop = new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(main)
    finally:
        try:
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()
