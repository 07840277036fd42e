"""The RPC plumbing of the ``fagin.v1.Fagin`` service: a call's log line, the status
each exception maps to, request parsing off the event loop, and the handlers' registration
with lenient request decoding and pre-serialized answers.
"""
from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import time

import grpc

from fagin.server import codec
from fagin.server.codec import BadRequest
from fagin.server.logs import CALL_FIELDS
from fagin.server.scheduler import Overloaded, ShuttingDown
from fagin.server.request import DeadlineTooShort
from fagin.v1 import fagin_pb2

log = logging.getLogger("fagin.server")


def _peer(context):
    try:
        return context.peer()
    except Exception:      # the peer is only for the log line
        return "?"


#: Metadata by which the HTTP port (gateway.py) names its client, for the call's log line.
HTTP_PEER_METADATA = "x-fagin-http-peer"


class CallLog:
    """The one log line of a call, written once the call has ended.

    Written from the call's done-callback, after the answer has gone out, so
    that formatting and writing the line never delay the answer.  Handlers
    set ``code`` and add ``info`` items (``game=...``, ``iterations=...``).

    The peer is read when the call starts: by the time the done-callback
    runs, grpc.aio may have released the call, and ``context.peer()`` then
    reads freed memory (it crashed the process, rarely, under test load).
    """

    __slots__ = ("method", "peer", "start", "code", "info")

    def __init__(self, method, context):
        self.method = method
        self.start = time.perf_counter()
        self.code = grpc.StatusCode.OK
        self.info = {}
        self.peer = None
        if log.isEnabledFor(logging.INFO):
            self.peer = _peer(context)
            if self.peer.startswith("unix:"):
                # From the HTTP port (gateway.py), the only client of the server's Unix
                # socket: the HTTP client's address is the peer worth logging.
                via = dict(context.invocation_metadata() or ()).get(HTTP_PEER_METADATA)
                if via:
                    self.peer = f"http:{via}"
            context.add_done_callback(self._write)

    def _write(self, _context):
        ms = (time.perf_counter() - self.start) * 1000
        extra = " ".join(f"{k}={v}" for k, v in self.info.items())
        # The same facts as fields, for the JSON log format (logs.py).
        fields = {"method": self.method, "peer": self.peer, "code": self.code.name, "ms": round(ms, 1),
                  **self.info}
        log.info("%s %s %s %.1fms %s", self.method, self.peer, self.code.name, ms, extra,
                 extra={CALL_FIELDS: fields})


INTERNAL_MESSAGE = "internal error (logged on the server)"

#: What ends a handler early: an error, or grpc cutting the call (the client's cancel, the
#: server's shutdown).  grpc.aio cuts a streaming handler that waits at a ``yield`` (its
#: report handed over) by closing the generator, which raises GeneratorExit there, not
#: CancelledError; both are a cut call.
CALL_ENDINGS = (Exception, asyncio.CancelledError, GeneratorExit)


def _status_of(exc):
    """The status code for an exception a handler lets through, or None if unexpected."""
    if isinstance(exc, BadRequest):
        return grpc.StatusCode.INVALID_ARGUMENT
    if isinstance(exc, DeadlineTooShort):
        return grpc.StatusCode.DEADLINE_EXCEEDED
    if isinstance(exc, Overloaded):
        return grpc.StatusCode.RESOURCE_EXHAUSTED
    if isinstance(exc, ShuttingDown):
        return grpc.StatusCode.UNAVAILABLE
    return None


RETRY_PUSHBACK_KEY = "grpc-retry-pushback-ms"


#: The longest status message sent: gRPC refuses metadata over 16 KB, and a client would see
#: RESOURCE_EXHAUSTED instead of the status.  Messages quote client strings cut short
#: (``logs.quoted``); this is the last guard.
MOST_MESSAGE_CHARS = 2000


def bounded_message(message):
    """`message` cut to MOST_MESSAGE_CHARS, its length told."""
    if len(message) <= MOST_MESSAGE_CHARS:
        return message
    return f"{message[:MOST_MESSAGE_CHARS]}... (message cut at {MOST_MESSAGE_CHARS} of {len(message)} characters)"


def error_of(exc, method):
    """(status code, message) telling a client of `exc`; an unexpected one is logged here."""
    code = _status_of(exc)
    if code is not None:
        return code, bounded_message(str(exc))
    log.error("%s failed", method, exc_info=exc)
    return grpc.StatusCode.INTERNAL, INTERNAL_MESSAGE


async def end_call(call, context, exc, cut_by_shutdown=False):
    """Ends a call whose handler raised `exc` with the status that maps to it, recorded
    for the call's log line: BadRequest is INVALID_ARGUMENT, DeadlineTooShort
    DEADLINE_EXCEEDED, anything unexpected INTERNAL.  Always raises.  `cut_by_shutdown`:
    the server's shutdown, not the client, would have cancelled the call now."""
    if isinstance(exc, (asyncio.CancelledError, GeneratorExit)):
        # A call the server's shutdown cancels at the end of its grace period reaches its
        # client as UNAVAILABLE: the log line says what the client saw.
        call.code = grpc.StatusCode.UNAVAILABLE if cut_by_shutdown else grpc.StatusCode.CANCELLED
        raise exc
    if _status_of(exc) is None and context.code() not in (None, grpc.StatusCode.OK):
        call.code = context.code()        # an abort already under way
        raise exc
    call.code, message = error_of(exc, call.method)
    if isinstance(exc, Overloaded):
        # gRPC's retry policy honours this hint (and clients may read it).
        await context.abort(call.code, message, trailing_metadata=((RETRY_PUSHBACK_KEY, str(exc.retry_ms)),))
    await context.abort(call.code, message)


#: A refused BatchRecommend reads (and drops) what the client sends for this long at most
#: before it ends the call.
REFUSED_DRAIN_S = 5.0


async def drain_requests(request_iterator, limit_s=REFUSED_DRAIN_S):
    """Reads and drops a refused stream's requests until the client half-closes, for
    `limit_s` at most.  Ended while the client still writes, the call reached grpc.aio
    clients as INTERNAL ("Internal error from Core": their failed write won the race with
    the status) rather than as the refusal, and without its retry hint."""
    async def read_all():
        async for _ in request_iterator:
            pass
    try:
        await asyncio.wait_for(read_all(), limit_s)
    except (asyncio.TimeoutError, Exception):      # the status goes out whatever the stream did
        pass


# Threads that parse and decode requests, off the event loop.  The work holds
# the GIL, so a few threads are enough: they only keep one large request from
# queueing the small ones behind it.
DECODE_THREADS = 2


def parsed(request):
    """The request message (a large one's bytes parsed now); raises BadRequest if undecodable."""
    if isinstance(request, codec.Pending):
        request = request.parse()
    if isinstance(request, codec.Undecodable):
        raise request.bad_request()
    return request


async def parse(request, decoder):
    """The request message: a large one is parsed in the `decoder` threads."""
    if isinstance(request, codec.Pending):
        request = await asyncio.get_running_loop().run_in_executor(decoder, request.parse)
    return parsed(request)


def unary_call(method):
    """Maps the handler's exceptions to statuses (see ``end_call``) and logs the call.

    A plain (not async) handler decodes and checks what a client sent: it runs
    in the decoding threads, so that a large or costly state never stalls the
    event loop and the other calls on it.
    """
    sync = not inspect.iscoroutinefunction(method)

    def run(self, request, context, info):
        return method(self, parsed(request), context, info)

    @functools.wraps(method)
    async def wrapper(self, request, context):
        call = CallLog(method.__name__, context)
        try:
            if sync:
                return await asyncio.get_running_loop().run_in_executor(
                    self.decoder, run, self, request, context, call.info)
            return await method(self, await parse(request, self.decoder), context, call.info)
        except CALL_ENDINGS as e:
            await end_call(call, context, e, self.scheduler.cut_by_shutdown())
    return wrapper


SERVICE = fagin_pb2.DESCRIPTOR.services_by_name["Fagin"]


def _serializer(response_class):
    """The response serializer: answers written straight to bytes (``answer.py``) go out
    as they are, messages are serialized."""
    serialize = response_class.SerializeToString

    def serializer(response):
        return response if type(response) is bytes else serialize(response)
    return serializer


def add_to_server(servicer, server):
    """Registers the service with lenient request decoding (see ``codec.lenient``)."""
    handlers = {}
    for method in SERVICE.methods:
        request_class = getattr(fagin_pb2, method.input_type.name)
        response_class = getattr(fagin_pb2, method.output_type.name)
        if method.client_streaming and method.server_streaming:
            make = grpc.stream_stream_rpc_method_handler
        elif method.server_streaming:
            make = grpc.unary_stream_rpc_method_handler
        elif method.client_streaming:
            make = grpc.stream_unary_rpc_method_handler
        else:
            make = grpc.unary_unary_rpc_method_handler
        handlers[method.name] = make(getattr(servicer, method.name),
                                     request_deserializer=codec.lenient(request_class),
                                     response_serializer=_serializer(response_class))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE.full_name, handlers),))
