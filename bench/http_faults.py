"""The HTTP port under what one hostile or broken HTTP client can send: how long the server's
gRPC health checks stall meanwhile, how soon the client is answered, how long its connection lives.

A server is started with a bearer token and the HTTP port (``--server-args`` adds flags); a
thread calls gRPC health every ``--probe-ms`` ms throughout, and each case reports the longest
health call during it.  Cases (all on 127.0.0.1):

1. ``unauth-16mb``: a 16 MB JSON body without a token: time to the answer (401 expected).
2. ``unauth-1.9m``: a Recommend body whose ``state.kuhnPoker.actions`` holds 1.9 million
   elements, without a token.
3. ``auth-1.9m`` and ``auth-16mb``: the same bodies with the token (they are then parsed);
   ``auth-16mb-values``: 16 MB of lists nested three deep, none longer than a game's, to
   cost the JSON parser the most it may spend on one body.
4. ``idle``: a connection that sends nothing: how long it stays open (up to ``--wait-s``).
5. ``trickle``: a request whose body arrives a byte a second: how long it stays open.
6. ``fd-limit``: a second server with RLIMIT_NOFILE ``--nofile``, ``--connections`` idle HTTP
   connections: whether gRPC health still answers, and how many log lines the server wrote.

    python bench/http_faults.py
    python bench/http_faults.py --server-args="--http-idle-timeout 60"
    python bench/http_faults.py --cases bodies          # or connections, fd-limit
"""
from __future__ import annotations

import argparse
import http.client
import os
import re
import resource
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

TOKEN = "bench-token-0123456789abcdef0123456789"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(args, nofile=None):
    token_file = tempfile.NamedTemporaryFile("w", suffix=".tokens", delete=False)
    token_file.write(TOKEN + "\n")
    token_file.close()
    http_port = free_port()
    limit = None if nofile is None else (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile)))
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen([sys.executable, "-m", "fagin.server", "--port", "0", "--http-port", str(http_port),
                             "--auth-token-file", token_file.name, "--log-level", "INFO", *args],
                            stdout=subprocess.PIPE, stderr=log, text=True, preexec_fn=limit)
    line = proc.stdout.readline().strip()
    match = re.search(r":(\d+)$", line)
    if not match:
        proc.kill()
        log.seek(0)
        raise SystemExit(f"the server did not start: {line!r} {log.read()[-2000:]!r}")
    proc.stdout.readline()             # the HTTP port's line
    os.unlink(token_file.name)
    return proc, int(match.group(1)), http_port, log


class HealthProbe:
    """Calls gRPC health every `period_s` in a thread; `worst()` since the last `reset()`."""

    def __init__(self, port, period_s):
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.stub = health_pb2_grpc.HealthStub(self.channel)
        self.stub.Check(health_pb2.HealthCheckRequest(), timeout=10)
        self.period_s = period_s
        self.longest = 0.0
        self.failures = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stopping.wait(self.period_s):
            start = time.monotonic()
            try:
                self.stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
            except grpc.RpcError:
                self.failures += 1
            self.longest = max(self.longest, time.monotonic() - start)

    def reset(self):
        self.longest, self.failures = 0.0, 0

    def worst(self):
        time.sleep(3 * self.period_s)      # a probe after the case's end
        return f"longest gRPC health call {self.longest * 1000:.0f} ms, {self.failures} failed (1 s deadline)"

    def stop(self):
        self.stopping.set()
        self.thread.join(10)
        self.channel.close()


def kuhn_body(elements):
    return ('{"state":{"kuhnPoker":{"cards":[2,0],"actions":[' + ",".join(["1"] * elements) + ']}}}').encode()


def post(http_port, body, token=None, timeout=120):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn = http.client.HTTPConnection("127.0.0.1", http_port, timeout=timeout)
    start = time.monotonic()
    try:
        conn.request("POST", "/fagin.v1.Fagin/Recommend", body=body, headers=headers)
        response = conn.getresponse()
        data = response.read()
        return response.status, data[:160], time.monotonic() - start
    except OSError as e:
        return type(e).__name__, b"", time.monotonic() - start
    finally:
        conn.close()


def open_for(sock, wait_s, trickle=False):
    """Seconds until the server closes `sock` (None: still open after `wait_s`)."""
    start = time.monotonic()
    sock.settimeout(1.0)
    while time.monotonic() - start < wait_s:
        try:
            if trickle:
                sock.sendall(b"x")
            data = sock.recv(65536)
            if not data:
                return time.monotonic() - start
        except socket.timeout:
            continue
        except OSError:
            return time.monotonic() - start
    return None


def connection_cases(http_port, wait_s):
    with socket.create_connection(("127.0.0.1", http_port)) as idle:
        closed = open_for(idle, wait_s)
    print(f"idle connection: {'closed after %.1f s' % closed if closed else 'still open after %.0f s' % wait_s}")
    with socket.create_connection(("127.0.0.1", http_port)) as slow:
        slow.sendall(b"POST /grpc.health.v1.Health/Check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100000\r\n\r\n")
        closed = open_for(slow, wait_s, trickle=True)
    print(f"body trickling a byte a second: "
          f"{'closed after %.1f s' % closed if closed else 'still open after %.0f s' % wait_s}")


def fd_limit_case(server_args, nofile, connections):
    proc, port, http_port, log = start_server(["--log-level", "WARNING", *server_args], nofile=nofile)
    socks = []
    try:
        for _ in range(connections):
            try:
                socks.append(socket.create_connection(("127.0.0.1", http_port), timeout=2))
            except OSError:
                break
        time.sleep(2)
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        start = time.monotonic()
        try:
            health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
            health = f"answered in {(time.monotonic() - start) * 1000:.0f} ms"
        except grpc.RpcError as e:
            health = f"failed {e.code().name} after {time.monotonic() - start:.1f} s"
        channel.close()
        time.sleep(2)
    finally:
        for s in socks:
            s.close()
        proc.terminate()
        proc.wait(30)
    log.seek(0)
    text = log.read().decode("utf-8", "replace")
    print(f"RLIMIT_NOFILE {nofile}, {connections} idle HTTP connections opened ({len(socks)} connected): "
          f"gRPC health {health}; server log {len(text.splitlines())} lines, {len(text)} bytes, "
          f"{text.count('Traceback')} tracebacks")
    for line in text.splitlines()[:5]:
        print("  |", line[:200])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server-args", default="", help="extra flags for the servers")
    parser.add_argument("--probe-ms", type=float, default=50.0)
    parser.add_argument("--wait-s", type=float, default=40.0, help="longest wait for a connection to close")
    parser.add_argument("--nofile", type=int, default=256)
    parser.add_argument("--connections", type=int, default=300)
    parser.add_argument("--cases", default="bodies,connections,fd-limit")
    args = parser.parse_args(argv)
    server_args = shlex.split(args.server_args)
    chosen = set(args.cases.split(","))
    proc, port, http_port, _log = start_server(["--log-level", "WARNING", *server_args])
    probe = HealthProbe(port, args.probe_ms / 1000)
    try:
        sixteen = kuhn_body(8_000_000 - 30)[:16_000_000]
        sixteen = sixteen[:sixteen.rindex(b",")] + b"]}}}"
        hand = "[" + ",".join(["1"] * 250) + "]"
        player = '{"hands":[' + ",".join([hand] * 255) + "]}"
        nested = ('{"state":{"london":{"players":[' + ",".join([player] * 130) + "]}}}").encode()
        cases = [("unauth-16mb", sixteen, None), ("unauth-1.9m", kuhn_body(1_900_000), None),
                 ("auth-1.9m", kuhn_body(1_900_000), TOKEN), ("auth-16mb", sixteen, TOKEN),
                 ("auth-16mb-values", nested, TOKEN)]
        for name, body, token in cases if "bodies" in chosen else ():
            probe.reset()
            status, data, seconds = post(http_port, body, token)
            print(f"{name} ({len(body) / 1e6:.1f} MB): answered {status} after {seconds:.2f} s {data!r}; "
                  f"{probe.worst()}")
        if "connections" in chosen:
            probe.reset()
            connection_cases(http_port, args.wait_s)
            print(f"  during the connection cases: {probe.worst()}")
    finally:
        probe.stop()
        proc.terminate()
        proc.wait(30)
    if "fd-limit" in chosen:
        fd_limit_case(server_args, args.nofile, args.connections)


if __name__ == "__main__":
    main()
