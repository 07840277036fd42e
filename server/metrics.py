"""Prometheus metrics of a running server, served over HTTP (``--metrics-port``).

Two sources:

- a grpc.aio server interceptor counts every call (the Fagin service, health,
  reflection) by service, method, type and status code, and times it, under
  the names of go-grpc-prometheus (``grpc_server_started_total``,
  ``grpc_server_handled_total``, ``grpc_server_handling_seconds``) so that
  existing gRPC dashboards and alerts apply unchanged;
- a collector reads the admission state (``FaginService.scheduler.admission``), the
  scheduler's iteration count and the search module's kept tree memory when
  Prometheus scrapes, so the calls' paths carry no gauge updates.

Nothing here is installed when the metrics port is 0 (the default): a call
then pays nothing for it.
"""
from __future__ import annotations

import asyncio
import inspect
import socket
import threading
import time
from wsgiref.simple_server import WSGIRequestHandler, make_server

import grpc
from prometheus_client import (CollectorRegistry, Counter, Histogram, PlatformCollector, ProcessCollector,
                               make_wsgi_app)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.exposition import ThreadingWSGIServer

from fagin.server.pondering import END_REASONS

#: Call latency buckets in seconds: a ListGames takes about a millisecond, a
#: search from a few ms to the largest max_time_ms (minutes), a stream as long.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                   10.0, 30.0, 60.0, 120.0, 300.0, 600.0)

#: How often the HTTP server's thread looks for a stop request: what stopping it
#: waits at most (prometheus_client's own start_http_server polls every 0.5 s).
HTTP_POLL_S = 0.05

_CALL_TYPES = {(False, False): "unary", (False, True): "server_stream",
               (True, False): "client_stream", (True, True): "bidi_stream"}


class ServerMetrics:
    """The metrics of one server: its own registry (several servers may run in
    one process, as in the tests), the call interceptor and the HTTP endpoint."""

    def __init__(self):
        self.registry = CollectorRegistry(auto_describe=True)
        # process_resident_memory_bytes, process_cpu_seconds_total, ...: the
        # memory that the tree budget bounds, seen from outside.
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        labels = ("grpc_type", "grpc_service", "grpc_method")
        self.started = Counter("grpc_server_started_total", "Calls started on the server.",
                               labels, registry=self.registry)
        self.handled = Counter("grpc_server_handled_total",
                               "Calls completed on the server, by status code.",
                               labels + ("grpc_code",), registry=self.registry)
        self.latency = Histogram("grpc_server_handling_seconds",
                                 "Time from the start of a call to its status, in seconds.",
                                 labels, buckets=LATENCY_BUCKETS, registry=self.registry)
        self.interceptor = _CallInterceptor(self)
        self.http_server = None
        self.http_thread = None
        self.port = None

    def watch(self, service):
        """Reports `service`'s admission state, iterations and tree memory at each scrape."""
        self.registry.register(_SearchCollector(service))

    def serve(self, host, port):
        """Serves ``/metrics`` on host:port from a thread (port 0: any free port); returns the port."""
        host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        try:
            # The address family of the host (an IPv6 host needs AF_INET6).
            family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][0]
            server_class = type("MetricsServer", (ThreadingWSGIServer,), {"address_family": family})
            self.http_server = make_server(host, port, make_wsgi_app(self.registry), server_class,
                                           handler_class=_QuietHandler)
        except OSError as e:
            raise OSError(f"metrics: cannot listen on {host}:{port}: {e}") from None
        self.http_thread = threading.Thread(target=self.http_server.serve_forever, args=(HTTP_POLL_S,),
                                            name="fagin-metrics", daemon=True)
        self.http_thread.start()
        self.port = self.http_server.server_address[1]
        return self.port

    async def stop(self):
        """Stops the HTTP endpoint (off the event loop: shutdown waits for the thread's next poll)."""
        if self.http_server is not None:
            httpd, self.http_server = self.http_server, None
            await asyncio.to_thread(_shutdown, httpd)


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):
        """Nothing: wsgiref would print each scrape to stderr, outside the log format."""


def _shutdown(httpd):
    httpd.shutdown()
    httpd.server_close()


def _code_of(context, exc):
    """The status a call ends with when its handler raised `exc`."""
    if isinstance(exc, asyncio.CancelledError):
        return grpc.StatusCode.CANCELLED
    code = context.code()
    # An abort has set the code; any other exception is UNKNOWN to the client.
    return code if isinstance(code, grpc.StatusCode) and code != grpc.StatusCode.OK else grpc.StatusCode.UNKNOWN


def _ok_code(context):
    code = context.code()
    return code if isinstance(code, grpc.StatusCode) else grpc.StatusCode.OK


class _CallInterceptor(grpc.aio.ServerInterceptor):
    """Counts and times each call; the status is recorded before grpc sends it,
    so a client that has its answer also sees the call in the next scrape."""

    def __init__(self, metrics):
        self.metrics = metrics
        # The observed handler of each method's handler: built once, not per call.
        self.observed = {}

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        key = (handler_call_details.method, handler)
        observed = self.observed.get(key)
        if observed is None:
            observed = self.observed[key] = self._observe(handler_call_details.method, handler)
        return observed

    def _observe(self, full_method, handler):
        service, _, method = full_method.lstrip("/").rpartition("/")
        labels = (_CALL_TYPES[handler.request_streaming, handler.response_streaming], service, method)
        m = self.metrics
        started = m.started.labels(*labels)
        latency = m.latency.labels(*labels)

        def record(start, code):
            latency.observe(time.perf_counter() - start)
            m.handled.labels(*labels, code.name).inc()

        if handler.request_streaming and handler.response_streaming:
            behavior, wrap = handler.stream_stream, grpc.stream_stream_rpc_method_handler
        elif handler.request_streaming:
            behavior, wrap = handler.stream_unary, grpc.stream_unary_rpc_method_handler
        elif handler.response_streaming:
            behavior, wrap = handler.unary_stream, grpc.unary_stream_rpc_method_handler
        else:
            behavior, wrap = handler.unary_unary, grpc.unary_unary_rpc_method_handler

        if inspect.isasyncgenfunction(behavior):
            async def observed(request, context):
                started.inc()
                start = time.perf_counter()
                try:
                    async for response in behavior(request, context):
                        yield response
                except BaseException as e:
                    record(start, _code_of(context, e))
                    raise
                record(start, _ok_code(context))
        else:
            # Unary answers, and streams written with context.write().
            async def observed(request, context):
                started.inc()
                start = time.perf_counter()
                try:
                    response = await behavior(request, context)
                except BaseException as e:
                    record(start, _code_of(context, e))
                    raise
                record(start, _ok_code(context))
                return response

        return wrap(observed, request_deserializer=handler.request_deserializer,
                    response_serializer=handler.response_serializer)


class _SearchCollector:
    """The service's search state, read when Prometheus scrapes.

    It runs in the HTTP server's thread while the event loop changes these
    plain integers; each read is atomic, and a scrape may catch two of them a
    moment apart (as any sampled gauge)."""

    def __init__(self, service):
        self.service = service

    def collect(self):
        from fagin.search.ismcts import kept_tree_memory

        service = self.service
        scheduler = service.scheduler
        adm = scheduler.admission
        memory = scheduler.memory
        config = service.config

        def gauge(name, doc, value):
            return GaugeMetricFamily(name, doc, value=value)

        yield gauge("fagin_search_workers", "Search worker threads.", adm.workers)
        yield gauge("fagin_search_queue_depth",
                    "Searches admitted that have not started yet (RESOURCE_EXHAUSTED beyond the limit).",
                    adm.queued)
        yield gauge("fagin_search_queue_limit", "The most searches that may wait to start (max_queued).",
                    adm.max_queued)
        yield gauge("fagin_stream_searches_queued",
                    "StreamRecommend searches that have not started yet (bounded by max_streams, not max_queued).",
                    adm.queued_streams)
        yield gauge("fagin_searches_waiting",
                    "Searches waiting for a worker: new ones and those between time slices.", adm.waiting)
        yield gauge("fagin_searches_running", "Searches running a time slice now.", adm.running)
        yield gauge("fagin_searches_active", "Searches holding a tree-memory reservation (started, not ended).",
                    adm.active)
        yield gauge("fagin_open_streams", "Open StreamRecommend and BatchRecommend calls.", adm.open_streams)
        yield gauge("fagin_open_streams_limit", "The most streams that may be open (max_streams).",
                    config.stream_limit)
        yield CounterMetricFamily("fagin_refused_calls", "Calls refused RESOURCE_EXHAUSTED by admission control "
                                  "(queue full, too many streams).", value=adm.refused)
        errors = CounterMetricFamily("fagin_batch_request_errors",
                                     "BatchRecommend requests answered with an error (in an OK call), "
                                     "by status code.", labels=("grpc_code",))
        for code, count in list(service.batch_errors.items()):
            errors.add_metric((code,), count)
        yield errors
        yield CounterMetricFamily("fagin_search_iterations", "Search iterations run (rate() = iterations/s).",
                                  value=scheduler.iterations_searched)
        yield CounterMetricFamily("fagin_searches_inline", "Searches run on the event loop's thread rather "
                                  "than handed to a worker (inline_search_ms).", value=scheduler.searches_inline)
        yield gauge("fagin_tree_memory_reserved_bytes",
                    "Tree memory reserved by the searches under way.", memory.reserved_bytes)
        yield gauge("fagin_tree_memory_budget_bytes", "The server's tree-memory budget (max_tree_memory_mb).",
                    memory.budget_bytes)
        chunks, kept = kept_tree_memory()
        yield gauge("fagin_tree_memory_kept_bytes",
                    "Tree memory kept from finished searches for the next ones (per process).", kept)
        yield gauge("fagin_tree_memory_kept_chunks", "Chunks of tree memory kept for the next searches.", chunks)
        sessions = service.sessions
        yield gauge("fagin_session_trees", "Search trees kept for RecommendRequest.session (max_sessions).",
                    len(sessions))
        yield gauge("fagin_session_tree_bytes", "Tree memory of the trees kept for sessions (counted in "
                    "fagin_tree_memory_reserved_bytes).", memory.kept_bytes)
        yield CounterMetricFamily("fagin_session_continued", "Searches that continued a session's kept tree.",
                                  value=sessions.continued)
        dropped = CounterMetricFamily("fagin_session_trees_dropped", "Kept session trees dropped, by why: limit "
                                      "(max_sessions), idle (session_idle_seconds), memory (a search needed it), "
                                      "not continued (a call of its session and seat that could not continue "
                                      "it searched afresh).",
                                      labels=("reason",))
        for why in ("limit", "idle", "memory", "not continued"):
            dropped.add_metric((why,), sessions.dropped[why])
        yield dropped
        pondering = service.pondering
        yield gauge("fagin_pondering_trees", "Session trees pondering now (RecommendRequest.ponder_ms).",
                    len(pondering))
        yield CounterMetricFamily("fagin_ponder_started", "Kept trees whose call asked for pondering.",
                                  value=pondering.started)
        yield CounterMetricFamily("fagin_ponder_iterations", "Iterations searched by pondering.",
                                  value=pondering.iterations)
        yield CounterMetricFamily("fagin_ponder_worker_seconds", "Worker time spent pondering (on workers no "
                                  "call was using).", value=pondering.worker_seconds)
        yield CounterMetricFamily("fagin_ponder_yields", "Pondering slices stopped for a call.",
                                  value=pondering.yields)
        ended = CounterMetricFamily("fagin_ponder_ended", "Pondering ended, by why: time (ponder_ms), next call "
                                    "(the session's next call took the tree), dropped (the tree was dropped), "
                                    "memory (no node more fitted), shutdown.", labels=("reason",))
        for why in END_REASONS:
            ended.add_metric((why,), pondering.ended[why])
        yield ended
