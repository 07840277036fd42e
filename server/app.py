"""Builds and runs the gRPC server: the Fagin service, health checking and reflection.

``python -m fagin.server --help`` lists the settings (see ``config.py``).
"""
from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import logging
import signal
import sys
from concurrent.futures import ThreadPoolExecutor

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from fagin.server import config as config_mod
from fagin.server import logs
from fagin.server import loop as server_loop
from fagin.server.gateway import HttpGateway
from fagin.server.metrics import ServerMetrics
from fagin.server import security
from fagin.server.rpc import add_to_server
from fagin.server.service import FaginService
from fagin.v1 import fagin_pb2

log = logging.getLogger("fagin.server")

SERVICE_NAME = fagin_pb2.DESCRIPTOR.services_by_name["Fagin"].full_name


class Server:
    """A running fagin server (``await Server.start(config)``); ``port`` is the bound port."""

    def __init__(self, config, server, executor, health_servicer, port, service):
        self.config = config
        self.grpc_server = server
        self.executor = executor
        self.health = health_servicer
        self.port = port
        self.service = service
        self.metrics = None       # the ServerMetrics when metrics_port is set
        self.http = None          # the HttpGateway when http_port is set

    @classmethod
    async def start(cls, config):
        # Files and tokens first: a server that cannot have the protection asked for does not start.
        secured = security.ServerSecurity(config)
        executor = ThreadPoolExecutor(max_workers=config.workers, thread_name_prefix="fagin-search")
        metrics = ServerMetrics() if config.metrics_port else None
        # The metrics interceptor first (outermost): refused logins are counted too.
        interceptors = ([metrics.interceptor] if metrics else []) + list(secured.interceptors)
        server = grpc.aio.server(interceptors=interceptors or None, options=[
            ("grpc.max_receive_message_length", config.max_message_bytes),
            ("grpc.max_send_message_length", config.max_message_bytes),
            ("grpc.so_reuseport", 0),
        ])
        service = FaginService(config, executor)
        service.scheduler.idle_watch = server_loop.idle_watch(asyncio.get_running_loop())
        add_to_server(service, server)
        health_servicer = health.aio.HealthServicer() if hasattr(health, "aio") else health.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        if config.reflection:
            reflection.enable_server_reflection(
                (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                 reflection.SERVICE_NAME), server)
        address = grpc_address(config.host, config.port)
        try:
            if secured.credentials is not None:
                port = server.add_secure_port(address, secured.credentials)
            else:
                port = server.add_insecure_port(address)
        except RuntimeError:      # newer grpcio raises where older ones returned 0
            port = 0
        if port == 0:
            executor.shutdown(wait=False)
            raise OSError(f"cannot listen on {address}: the address is not one of this machine's, "
                          f"or the port is in use (--host, --port)")
        # Its Unix socket is added to the gRPC server before it starts.
        gateway = HttpGateway(config, secured.tokens) if config.http_port else None
        if gateway:
            gateway.bind(server)
        if metrics:
            metrics.watch(service)
            metrics.serve(config.host, config.metrics_port)
            log.info("metrics at %s/metrics", http_url("http", config.host, metrics.port))
        if secured.weak_token_warning:
            log.warning(secured.weak_token_warning)
        warning = security.exposure_warning(config, port)
        if warning:
            # Logged (it may go to a collector) and printed (an operator at a terminal sees it).
            log.warning(warning)
            print(f"\n*** {warning}\n", file=sys.stderr, flush=True)
        await server.start()
        if gateway:
            try:
                await gateway.start()
            except BaseException:
                # Nothing half-started is left behind: the caller sees the error alone.
                await server.stop(0)
                await gateway.stop()
                executor.shutdown(wait=False)
                service.decoder.shutdown(wait=False)
                if metrics:
                    await metrics.stop()
                raise
            log.info("fagin HTTP (gRPC-Web, JSON) on %s", http_url(gateway.scheme, config.host, gateway.port))
        for name in ("", SERVICE_NAME):
            await _set_status(health_servicer, name, health_pb2.HealthCheckResponse.SERVING)
        log.info("fagin serving on %s with %d search workers", grpc_address(config.host, port), config.workers)
        running = cls(config, server, executor, health_servicer, port, service)
        running.metrics = metrics
        running.http = gateway
        return running

    async def not_serving(self):
        """Health NOT_SERVING (the server as a whole and the Fagin service): probes and
        load balancers stop sending calls here."""
        for name in ("", SERVICE_NAME):
            await _set_status(self.health, name, health_pb2.HealthCheckResponse.NOT_SERVING)

    async def drain(self, seconds, interrupt=None):
        """Reports NOT_SERVING and goes on accepting and serving calls for `seconds`
        (or until the event `interrupt` is set), so that load balancers take the server
        out of rotation before it stops accepting (``stop``)."""
        await self.not_serving()
        if interrupt is None:
            await asyncio.sleep(seconds)
            return
        try:
            await asyncio.wait_for(interrupt.wait(), seconds)
        except asyncio.TimeoutError:
            pass

    async def stop(self, grace=None):
        """Stops accepting calls, lets accepted ones finish (up to `grace` s), then
        cancels the searches still running and ends.

        Health goes NOT_SERVING first, so that load balancers stop routing here
        while the accepted calls drain.
        """
        grace = self.config.grace_seconds if grace is None else grace
        await self.not_serving()
        self.service.pondering.close()     # a guest: it stops first, at once
        loop = asyncio.get_running_loop()
        # At the end of the grace period the searches stop whatever grpc's stop
        # is doing; cancelling the calls alone would leave their search threads
        # running to the end of their budgets, and the process with them.
        self.service.scheduler.shutdown_begins(grace)
        timer = loop.call_later(grace, self.service.scheduler.cancel_searches)
        try:
            # The HTTP side drains beside the gRPC side: its calls are gRPC calls, which
            # the gRPC server's stop lets finish or ends at `grace`.
            await asyncio.gather(self.grpc_server.stop(grace), *([self.http.stop()] if self.http else []))
        finally:
            timer.cancel()
        self.service.scheduler.cancel_searches()
        # Waited for in a thread: a blocking wait here would stall the event
        # loop, and with it the cancellations of the calls still running.
        for pool in (self.executor, self.service.decoder):
            await loop.run_in_executor(None, functools.partial(pool.shutdown, wait=True, cancel_futures=True))
        if self.metrics:
            await self.metrics.stop()     # last: a scrape still sees the drain
        log.info("fagin stopped")

    async def wait(self):
        await self.grpc_server.wait_for_termination()


def grpc_address(host, port):
    """``host:port`` as gRPC binds it: an IPv6 literal in brackets, given with them or not
    (``::1`` and ``[::1]`` are one host)."""
    host = host.strip()
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"


def http_url(scheme, host, port):
    """``scheme://host:port`` with an IPv6 literal in brackets (``http://[::1]:8080``)."""
    return f"{scheme}://{grpc_address(host, port)}"


async def _set_status(servicer, name, status):
    result = servicer.set(name, status)
    if asyncio.iscoroutine(result):
        await result


async def serve(config, ready=None):
    """Serves until SIGTERM or SIGINT, then shuts down gracefully."""
    server = await Server.start(config)
    # What start-up made (modules, protobuf descriptors, the games' tables) lives as long as
    # the process: frozen, the collector stops walking it again and again, after each few
    # hundred allocations of the calls' own objects, at a small call's cost
    # (docs/architecture.md, "The server").
    gc.collect()
    gc.freeze()
    if ready is not None:
        ready(server)
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    if config.drain_seconds > 0:
        log.info("shutting down: health NOT_SERVING, still accepting calls for %g s (drain)",
                 config.drain_seconds)
        stopping.clear()
        await server.drain(config.drain_seconds, stopping)
    log.info("shutting down: finishing accepted calls (grace %.0f s)", config.grace_seconds)
    await server.stop()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="fagin serve", description="Run the fagin gRPC server.")
    config_mod.add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        config = config_mod.from_namespace(args)
        security.ServerSecurity(config)     # unreadable TLS or token files: a usage error
        if config.http_port:
            HttpGateway(config)             # unusable CORS origins or static directory: too
    except ValueError as e:
        parser.error(str(e))
    logs.configure(config.log_level, config.log_format, sys.stderr)

    def ready(server):
        # A machine-readable line for scripts and tests (the port may be 0 = any free port).
        print(f"fagin listening on {grpc_address(config.host, server.port)}", flush=True)
        if server.http:
            url = http_url(server.http.scheme, config.host, server.http.port)
            print(f"fagin http listening on {url}", flush=True)
            if config.http_static_dir:
                print(f"the browser page: open {url}/ to play against the bots (--http-port 0: none)",
                      flush=True)

    try:
        server_loop.run(serve(config, ready))
    except OSError as e:        # an address that cannot be bound: said plainly, no traceback
        print(f"fagin serve: error: {e}", file=sys.stderr, flush=True)
        return 1
    return 0
