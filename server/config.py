"""Server settings: defaults, command-line flags and ``FAGIN_*`` environment variables.

A flag beats its environment variable, which beats the default.
"""
from __future__ import annotations

import argparse
import functools
import importlib.util
import os
from dataclasses import dataclass, field, fields

from fagin.search import limits
from fagin.search.memory import UNMEASURED_BYTES_PER_NODE


def _builtin_frontend() -> str:
    """The browser frontend shipped in the package (clients/web), found without importing
    the clients (and their gRPC stubs) into the server's settings."""
    return os.path.join(importlib.util.find_spec("fagin.clients").submodule_search_locations[0], "web")


#: The directory --http-static-dir serves by default: the browser frontend (docs/operating.md, "The browser frontend").
BUILTIN_FRONTEND = _builtin_frontend()

#: The HTTP port's default: the browser page at http://127.0.0.1:8080/ beside gRPC on 50051.
DEFAULT_HTTP_PORT = 8080


@dataclass(frozen=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 50051
    # Threads that run searches (each search holds one; the GIL is released).
    workers: int = max(1, os.cpu_count() or 1)
    # Budget limits: larger requests are lowered to these (and say so).
    max_iterations: int = 10_000_000
    max_time_ms: int = 60_000
    # Budget when a request gives none: a served answer, so more than the
    # library's limits.DEFAULT_ITERATIONS for a bare search() call.
    default_iterations: int = 2_000
    # Cap on search tree nodes per search thread.  0 = derived from the tree-memory
    # budget: room for twice the workers' trees at NODE_BYTES_FOR_DEFAULT a node, at
    # most limits.DEFAULT_MAX_NODES (a node's cost depends on its game's branching).
    max_nodes: int = field(default=0, metadata={
        "help": "nodes per search thread; 0 = derived from the tree-memory budget"})
    # Largest request accepted, in bytes (larger: RESOURCE_EXHAUSTED).
    max_message_bytes: int = 4 * 1024 * 1024
    # Batch requests searched at once per stream (beyond: read when a slot frees).
    batch_concurrency: int = field(default=0, metadata={
        "help": "batch requests searched at once per stream; 0 = twice the workers"})
    # Seconds that SIGTERM waits for accepted calls to finish.
    grace_seconds: float = 30.0
    # Seconds that the server goes on accepting and serving calls after SIGTERM, health
    # already NOT_SERVING, so that load balancers and readiness probes take it out of
    # rotation before it stops accepting (then the grace period begins).  A second SIGTERM
    # or SIGINT ends the drain early.  0 = stop accepting at once.
    drain_seconds: float = field(default=0.0, metadata={
        "help": "seconds to keep accepting calls after SIGTERM, health NOT_SERVING, before the "
                "grace period (so load balancers notice); 0 = stop accepting at once"})
    # Searches stop this many ms before the call's deadline, to answer in time.
    deadline_margin_ms: int = 50
    log_level: str = "INFO"
    # Admission control (server/scheduler.py).  Searches waiting to start; one
    # more is refused RESOURCE_EXHAUSTED with a retry hint.  0 = 16 per worker.
    max_queued: int = field(default=0, metadata={
        "help": "searches waiting to start before RESOURCE_EXHAUSTED; 0 = 16 per worker"})
    # Open StreamRecommend and BatchRecommend calls; one more is refused
    # RESOURCE_EXHAUSTED.  0 = 16 per worker.
    max_streams: int = field(default=0, metadata={
        "help": "open StreamRecommend and BatchRecommend calls; 0 = 16 per worker"})
    # Server-wide budget of search-tree memory in MB (server/tree_memory.py): each
    # search reserves what its tree may be at its next slice's end and returns it
    # when its call ends (a stream holds its tree between reports); kept session
    # trees count too.  0 = half of the memory available at start (MemAvailable,
    # or the cgroup limit if lower).
    max_tree_memory_mb: int = field(default=0, metadata={
        "help": "search-tree memory in MB, all searches together; 0 = half the memory available at start"})
    # Search trees kept between calls for RecommendRequest.session, one per session and seat
    # (server/sessions.py).  Kept trees count against max_tree_memory_mb and are the first
    # memory given up: beyond this many the least recently used is dropped, as is any idle
    # for session_idle_seconds, and any a search needs the memory of.  0 = none kept.
    max_sessions: int = field(default=64, metadata={
        "help": "search trees kept between calls for RecommendRequest.session (one per session and "
                "seat), least recently used dropped beyond it; 0 = none kept"})
    session_idle_seconds: float = field(default=600.0, metadata={
        "help": "seconds after its last call that a session's kept tree is dropped"})
    # RecommendRequest.ponder_ms: the longest a session's kept tree may be searched on after
    # its call has answered (server/pondering.py), on workers no call is using.  0 = the
    # server never ponders (a request asking for it is answered with a note).
    max_ponder_ms: int = field(default=60_000, metadata={
        "help": "the longest RecommendRequest.ponder_ms a call may ask for (searching a session's kept "
                "tree after answering, on idle workers); 0 = no pondering"})
    # Searches run in slices of about this many ms (4x as long while no other
    # search waits); a freed worker goes to the waiting search that has had the
    # least worker time, so short calls are not held up behind long ones.
    slice_ms: int = 25
    # A search expected to take at most this many ms (from the speed its game's
    # searches have shown) runs on the event loop's thread when no other search
    # runs or waits: the hand-off to a worker thread and back costs as much CPU
    # as a small search itself (docs/operating.md, --inline-search-ms).  Such a search holds up the loop
    # for as long, and never longer (it stops there and goes on in a worker).
    # 0 = every search runs in the workers.
    inline_search_ms: float = field(default=2.0, metadata={
        "help": "searches expected to take at most this many ms run on the event loop's thread "
                "while the server is otherwise idle (no worker hand-off); 0 = always in the workers"})
    # Observability (metrics.py, logs.py).  Prometheus metrics served over HTTP
    # at /metrics on this port of the server's host; 0 = off (no interceptor).
    metrics_port: int = 0
    # Log lines as "text" or "json" (one object a line, with each call's fields).
    log_format: str = "text"
    # Security (docs/operating.md, Security). TLS: the server's certificate chain and private key, PEM
    # files; both or neither.
    tls_cert: str = field(default="", metadata={"help": "server certificate chain (PEM) for TLS"})
    tls_key: str = field(default="", metadata={"help": "private key (PEM) of --tls-cert"})
    # mTLS: clients must present a certificate signed by this CA bundle (PEM). Needs TLS.
    tls_client_ca: str = field(default="", metadata={
        "help": "CA bundle (PEM): clients must present a certificate it signed (mTLS)"})
    # A bearer token every call but health must carry ("authorization: Bearer <token>"). Not
    # shown in the config's repr; prefer the environment variable or the file to the flag,
    # which other users of the machine can read in the process list.
    auth_token: str = field(default="", repr=False, metadata={
        "help": "bearer token required on every call but health (prefer FAGIN_AUTH_TOKEN or "
                "--auth-token-file: a flag is visible in the process list)"})
    # A file of accepted tokens, one a line (# comments), re-read when it changes: tokens
    # rotate without a restart.
    auth_token_file: str = field(default="", metadata={
        "help": "file of accepted bearer tokens, one a line, re-read when it changes"})
    # gRPC server reflection (grpcurl list/describe). On by default: it only describes the
    # API, which is public (the .proto files ship with the package), and with a token it
    # needs the token like every other call but health. Off shrinks the exposed surface.
    reflection: bool = field(default=True, metadata={
        "help": "gRPC server reflection, on or off (needs the token when one is set)"})
    # The HTTP port (server/gateway.py, docs/operating.md "Browsers and plain HTTP"): gRPC-Web and JSON
    # (the Connect protocol's unary form) at POST /fagin.v1.Fagin/<Method>, forwarded to this
    # server's own servicer with the same tokens, limits and TLS as the gRPC port, and the
    # browser page at /. On by default so that `fagin serve` alone gives a person a page to
    # open (it binds --host, loopback unless told otherwise). 0 = off.
    http_port: int = field(default=DEFAULT_HTTP_PORT, metadata={
        "help": "HTTP port for the browser page (at /), gRPC-Web and JSON calls "
                "(POST /fagin.v1.Fagin/<Method>); 0 = off"})
    # Origins whose pages may call the HTTP port (CORS), comma-separated, e.g.
    # "https://play.example.com,http://localhost:5173"; "*" = any. Empty: only pages served
    # by the HTTP port itself (same origin).
    http_cors_origins: str = field(default="", metadata={
        "help": "origins allowed to call the HTTP port from a browser (CORS), comma-separated, "
                "or *; empty = same origin only"})
    # A directory served at / on the HTTP port (it must hold index.html): by default the
    # browser frontend shipped in the package; empty = none (the port serves the API only).
    http_static_dir: str = field(default=BUILTIN_FRONTEND, metadata={
        "help": "directory (with index.html) served at / on the HTTP port; the default is the "
                "built-in browser frontend; empty = none"})
    # Connections to the HTTP port (server/gateway.py): at most this many open at once (one
    # more is answered 503 and closed), and never more than the process's descriptor limit
    # less a reserve for the gRPC port.
    http_max_connections: int = field(default=512, metadata={
        "help": "HTTP connections open at once (one more is refused 503); lowered to leave "
                "file descriptors to the gRPC port"})
    # Seconds an HTTP connection may wait for a whole request head, from its opening or its
    # last answer: an idle keep-alive connection and one trickling its headers alike.
    http_idle_timeout: float = field(default=30.0, metadata={
        "help": "seconds an HTTP connection may stay without a whole request head (idle, or "
                "sending headers slowly) before it is closed"})
    # Seconds a request's body may take to arrive after its head (408 and closed otherwise).
    http_body_timeout: float = field(default=30.0, metadata={
        "help": "seconds an HTTP request's body may take to arrive after its head (408 otherwise)"})

    def __post_init__(self):
        checks = {
            "port": 0 <= self.port <= 65535,
            "workers": 1 <= self.workers <= 1024,
            # A search refuses budgets beyond these: refused here at start-up
            # rather than met later as internal errors.
            "max_iterations": 1 <= self.max_iterations <= limits.MAX_ITERATIONS,
            "max_time_ms": 1 <= self.max_time_ms <= limits.MAX_TIME_MS,
            "default_iterations": 1 <= self.default_iterations <= self.max_iterations,
            "max_nodes": 0 <= self.max_nodes <= limits.MAX_NODES,
            "max_message_bytes": self.max_message_bytes >= 1024,
            "batch_concurrency": self.batch_concurrency >= 0,
            "grace_seconds": self.grace_seconds >= 0,
            "drain_seconds": 0 <= self.drain_seconds <= 3600,
            "deadline_margin_ms": self.deadline_margin_ms >= 0,
            "max_queued": self.max_queued >= 0,
            "max_streams": self.max_streams >= 0,
            "max_tree_memory_mb": self.max_tree_memory_mb >= 0,
            "max_sessions": 0 <= self.max_sessions <= 1_000_000,
            "session_idle_seconds": 0 < self.session_idle_seconds <= 7 * 86400,
            "max_ponder_ms": 0 <= self.max_ponder_ms <= 3_600_000,
            "slice_ms": 1 <= self.slice_ms <= 60_000,
            "inline_search_ms": 0 <= self.inline_search_ms <= 100,
            "metrics_port": self.metrics_port == 0 or (1 <= self.metrics_port <= 65535
                                                        and self.metrics_port != self.port),
            "log_format": self.log_format in ("text", "json"),
            "tls_key": bool(self.tls_cert) == bool(self.tls_key),     # both or neither
            "tls_client_ca": not self.tls_client_ca or bool(self.tls_cert),
            "http_port": self.http_port == 0 or (1 <= self.http_port <= 65535 and self.http_port != self.port
                                                  and self.http_port != self.metrics_port),
            "http_max_connections": 1 <= self.http_max_connections <= 1_000_000,
            "http_idle_timeout": 0 < self.http_idle_timeout <= 86400,
            "http_body_timeout": 0 < self.http_body_timeout <= 86400,
        }
        bad = [name for name, ok in checks.items() if not ok]
        if bad:
            raise ValueError(f"bad server setting: {', '.join(f'{b}={getattr(self, b)!r}' for b in bad)}"
                             + _SECURITY_HINTS.get(bad[0], ""))

    @property
    def batch_slots(self):
        return self.batch_concurrency or 2 * self.workers

    @property
    def queue_limit(self):
        return self.max_queued or 16 * self.workers

    @property
    def stream_limit(self):
        return self.max_streams or 16 * self.workers

    # Cached (a search's preparation reads them; the settings never change).
    @functools.cached_property
    def tree_memory_bytes(self):
        """The tree-memory budget in bytes (max_tree_memory_mb, or derived once per process)."""
        if self.max_tree_memory_mb:
            return self.max_tree_memory_mb << 20
        return _default_tree_memory()

    @functools.cached_property
    def node_cap(self):
        """Nodes per search thread: max_nodes, or derived from the tree-memory budget."""
        if self.max_nodes:
            return self.max_nodes
        derived = self.tree_memory_bytes // (2 * self.workers * NODE_BYTES_FOR_DEFAULT)
        return int(max(MIN_DERIVED_NODES, min(limits.DEFAULT_MAX_NODES, derived)))


#: Bytes a node is taken to cost when deriving the default max_nodes (above
#: the largest figure measured among the served games, docs/operating.md; the tree
#: memory also counts this much a node for a game not measured yet: fagin.search.memory).
NODE_BYTES_FOR_DEFAULT = UNMEASURED_BYTES_PER_NODE
#: The derived node cap never goes below this (a small machine still searches).
MIN_DERIVED_NODES = 10_000
#: Budget when the available memory cannot be read.
FALLBACK_TREE_MEMORY = 1 << 30
_tree_memory = []


def available_memory_bytes():
    """Memory this process may still use: MemAvailable, or less under a cgroup
    (container) limit; None if neither can be read."""
    found = []
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
    except OSError:
        pass
    for limit_path, usage_path in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        try:
            with open(limit_path) as f:
                raw = f.read().strip()
            with open(usage_path) as f:
                used = int(f.read().strip())
        except (OSError, ValueError):
            continue
        if raw.isdigit() and int(raw) < 1 << 60:   # "max" or a huge number: no limit
            found.append(max(0, int(raw) - used))
        break
    return min(found) if found else None


def _default_tree_memory():
    if not _tree_memory:
        available = available_memory_bytes()
        _tree_memory.append(FALLBACK_TREE_MEMORY if available is None else max(64 << 20, available // 2))
    return _tree_memory[0]


_SECURITY_HINTS = {
    "http_port": f" (the HTTP port, on by default at {DEFAULT_HTTP_PORT}, needs a port of its own: "
                 f"--http-port N, or --http-port 0 for none)",
    "tls_key": " (TLS needs both --tls-cert and --tls-key)",
    "tls_client_ca": " (client certificates need TLS: give --tls-cert and --tls-key too)",
}


def parse_bool(text: str) -> bool:
    """An on/off setting: on/off, true/false, yes/no or 1/0."""
    value = {"on": True, "true": True, "yes": True, "1": True,
             "off": False, "false": False, "no": False, "0": False}.get(str(text).strip().lower())
    if value is None:
        raise ValueError(f"expected on or off, got {text!r}")
    return value


parse_bool.__name__ = "on/off"      # argparse names the type in its error message


def _kind(f):
    return parse_bool if isinstance(f.default, bool) else type(f.default)


def add_arguments(parser: argparse.ArgumentParser):
    """Adds one flag per setting (``--max-time-ms`` for ``max_time_ms``)."""
    for f in fields(ServerConfig):
        flag = "--" + f.name.replace("_", "-")
        env = "FAGIN_" + f.name.upper()
        default = ("on" if f.default else "off") if isinstance(f.default, bool) else repr(f.default)
        what = f.metadata.get("help")
        parser.add_argument(flag, dest=f.name, type=_kind(f), default=None,
                            help=(f"{what}; " if what else "") + f"default {default}; environment {env}")


def from_namespace(ns: argparse.Namespace | None = None, environ=None) -> ServerConfig:
    environ = os.environ if environ is None else environ
    values = {}
    for f in fields(ServerConfig):
        given = getattr(ns, f.name, None) if ns is not None else None
        if given is None:
            raw = environ.get("FAGIN_" + f.name.upper())
            if raw is not None:
                try:
                    given = _kind(f)(raw)
                except ValueError:
                    raise ValueError(f"FAGIN_{f.name.upper()}: expected {type(f.default).__name__}, "
                                     f"got {raw!r}") from None
        if given is not None:
            values[f.name] = given
    return ServerConfig(**values)
