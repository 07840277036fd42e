"""Fuzzes the state decoders and validators with generated and mutated state messages.

For each game, valid states come from random playouts (engine calls, as
NewGame and ApplyAction make them, whole states and each seat's view); each
input is one of them mutated at the protobuf level (a field's value, a
list's length, an enum's number, several at once), at the byte level (bits
flipped, bytes cut, inserted or repeated in the serialized message) or at
the dict level (whole parts swapped between states, lists reordered or
repeated, then encoded as the wire would carry them). Every input goes
through the server's own path: parse, ``codec.decode_state`` (the engine's
``from_description``), and for a state that is accepted, the calls a server
makes on it (status, legal actions, one action applied, a seat's view
decoded again: one seat's, chosen by the input).

Outcomes per input: accepted, refused (a ``BadRequest`` naming a field, or
bytes that are no message), or a defect:

* crash: any other exception, a refusal that names no field, or a worker
  process that died;
* hang: an input that took longer than ``--time-limit`` seconds of the
  worker's CPU (CPU, not wall time: an input slowed by a crowded machine, or
  paused with SIGSTOP, is not a hang; a loop that never ends uses CPU all the
  same); a worker that makes no progress for five times that long (wall
  time, which also catches one blocked for good) is killed and restarted
  after that input.

Inputs are numbered and input ``i`` of a game is made from ``(--seed, game,
i)`` alone, so a defect is replayed with ``--replay GAME:I``. With
``--server-sample N`` every N-th input is also sent as raw bytes to a live
server (``python -m fagin.server``), as a LegalActions call and as a small
Recommend, which must answer OK or INVALID_ARGUMENT and stay up.

    python bench/fuzz_states.py --inputs 1000000 --workers 2 --server-sample 1000

prints the counts per game; exits 1 if any defect was found.
"""
from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import random
import re
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field

from google.protobuf.descriptor import FieldDescriptor

from fagin.engines.registry import GAMES, load_game
from fagin.server import codec
from fagin.v1 import fagin_pb2

CHUNK = 200                 # inputs a worker reports at once
PLAYOUTS = 6                # random games played per player count for the valid states
STATES_PER_PLAYOUT = 12     # states taken from each
REFUSAL = re.compile(r"^state(\.\w+)?(\[\d+\])?[.:\[]")

INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-2**31, 2**31 - 1), FieldDescriptor.TYPE_SINT32: (-2**31, 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-2**31, 2**31 - 1), FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1), FieldDescriptor.TYPE_INT64: (-2**63, 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-2**63, 2**63 - 1), FieldDescriptor.TYPE_SFIXED64: (-2**63, 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1), FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}


# ------------------------------------------------------------------ valid states

def valid_states(game_id, seed):
    """Serialized GameStates from random playouts: whole states and every seat's view."""
    spec, game = GAMES[game_id], load_game(game_id)
    rng = random.Random(f"{seed}:{game_id}:seeds")
    out = []
    for players in range(spec.min_players, spec.max_players + 1):
        for _ in range(PLAYOUTS):
            state = game.new_initial_state(players)
            history = []
            while True:
                history.append(state.clone() if hasattr(state, "clone") else
                               game.from_description(state.describe()))
                if state.is_terminal():
                    break
                if state.is_chance_node():
                    state.apply(state.sample_chance(rng.randrange(2**63)))
                else:
                    state.apply(rng.choice(state.legal_actions()))
            for s in rng.sample(history, min(STATES_PER_PLAYOUT, len(history))):
                out.append(codec.encode_state(s).SerializeToString())
                seat = rng.randrange(players)
                out.append(codec.encode_description(game, s.view(seat)).SerializeToString())
    return out


# ------------------------------------------------------------------ mutations

def _fields(msg, into):
    """Every (message, field) pair under ``msg`` with the message set."""
    for f in msg.DESCRIPTOR.fields:
        into.append((msg, f))
        if f.type != FieldDescriptor.TYPE_MESSAGE:
            continue
        value = getattr(msg, f.name)
        if _repeated(f):
            if f.message_type.GetOptions().map_entry:
                continue
            for item in value:
                _fields(item, into)
        elif msg.HasField(f.name):
            _fields(value, into)
    return into


def _repeated(f):
    rep = getattr(f, "is_repeated", None)
    return rep if rep is not None else f.label == FieldDescriptor.LABEL_REPEATED


def _scalar(rng, f, strings):
    """A random value for field ``f``: often near a boundary, sometimes anything."""
    t = f.type
    if t in INT_RANGES:
        lo, hi = INT_RANGES[t]
        r = rng.random()
        if r < 0.5:
            v = rng.choice((0, 1, -1, 2, 3, 4, 5, 6, 8, 9, 12, 13, 20, 50, 100, 109, 110, 111, 127, 128,
                            255, 256, 1000, 65535, 65536, lo, hi, lo + 1, hi - 1, 2**31 - 1, -2**31, 2**32,
                            2**53, -(2**53)))
        elif r < 0.85:
            v = rng.randint(-3, 200)
        else:
            v = rng.randint(lo, hi)
        return min(hi, max(lo, v))
    if t == FieldDescriptor.TYPE_ENUM:
        numbers = [v.number for v in f.enum_type.values]
        return rng.choice(numbers + [max(numbers) + 1, max(numbers) + 7, -1, 2**31 - 1, -2**31])
    if t == FieldDescriptor.TYPE_BOOL:
        return rng.random() < 0.5
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return rng.choice((0.0, -0.0, 1.0, -1.0, 0.5, math.nan, math.inf, -math.inf, 1e38, -1e38,
                           rng.uniform(-1e3, 1e3)))
    if t == FieldDescriptor.TYPE_STRING:
        r = rng.random()
        if r < 0.6 and strings:
            return rng.choice(strings)
        if r < 0.8:
            return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_-0123456789 ")
                           for _ in range(rng.randint(0, 24)))
        return rng.choice(("", " ", "\x00", "é", "日本", "\ud7ff", "a" * 64, "a" * 65, "x" * 5000,
                           "UNSPECIFIED", "unknown_3", "None", "-1"))
    if t == FieldDescriptor.TYPE_BYTES:
        return rng.randbytes(rng.randint(0, 16))
    raise TypeError(f"no generator for field type {t}")


def _mutate_field(rng, msg, strings):
    pairs = _fields(msg, [])
    parent, f = rng.choice(pairs)
    value = getattr(parent, f.name)
    if _repeated(f):
        if f.type == FieldDescriptor.TYPE_MESSAGE:
            if f.message_type.GetOptions().map_entry:
                return
            r = rng.random()
            if r < 0.3 and len(value):
                del value[rng.randrange(len(value))]
            elif r < 0.6 and len(value):
                value.add().CopyFrom(value[rng.randrange(len(value))])
            elif r < 0.7:
                value.add()
            elif r < 0.8 and len(value) > 1:
                i, j = rng.sample(range(len(value)), 2)
                a, b = type(value[i])(), type(value[j])()
                a.CopyFrom(value[i])
                b.CopyFrom(value[j])
                value[i].CopyFrom(b)
                value[j].CopyFrom(a)
            else:
                del value[:]
            return
        r = rng.random()
        if r < 0.25 and len(value):
            value[rng.randrange(len(value))] = _scalar(rng, f, strings)
        elif r < 0.45 and len(value):
            del value[rng.randrange(len(value))]
        elif r < 0.6:
            value.append(_scalar(rng, f, strings) if rng.random() < 0.5 or not len(value)
                         else value[rng.randrange(len(value))])
        elif r < 0.7:
            del value[:]
        elif r < 0.8 and len(value):
            items = list(value)
            rng.shuffle(items)
            del value[:]
            value.extend(items)
        else:
            # Around the game's bound, and now and then far beyond it.
            bound = GAMES[_game_of(msg)].max_list if _game_of(msg) else 256
            n = rng.choice((bound, bound + 1, bound - 1, 2 * bound, 5000))
            src = list(value) or [_scalar(rng, f, strings)]
            del value[:]
            value.extend(src[i % len(src)] for i in range(max(0, n)))
        return
    if f.type == FieldDescriptor.TYPE_MESSAGE:
        if parent.HasField(f.name) and rng.random() < 0.6:
            parent.ClearField(f.name)
        else:
            getattr(parent, f.name).SetInParent()
        return
    if f.has_presence and parent.HasField(f.name) and rng.random() < 0.3:
        parent.ClearField(f.name)
        return
    setattr(parent, f.name, _scalar(rng, f, strings))


def _game_of(msg):
    for game_id in GAMES:
        if msg.DESCRIPTOR.file.name.endswith(f"/{game_id}.proto"):
            return game_id
    return None


def _mutate_bytes(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        if not data:
            data += rng.randbytes(rng.randint(1, 8))
        elif r < 0.4:
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        elif r < 0.55:
            data[rng.randrange(len(data))] = rng.choice((0, 0x7F, 0x80, 0xFF, rng.randrange(256)))
        elif r < 0.7:
            i = rng.randrange(len(data) + 1)
            data[i:i] = rng.randbytes(rng.randint(1, 6))
        elif r < 0.85:
            i = rng.randrange(len(data))
            del data[i:i + rng.randint(1, 8)]
        else:
            i = rng.randrange(len(data))
            j = min(len(data), i + rng.randint(1, 32))
            data[j:j] = data[i:j] * rng.randint(1, 3)
    return bytes(data)


def _walk_dict(d, into, path=()):
    """Every (container, key) in a description (dicts and lists)."""
    items = d.items() if isinstance(d, dict) else enumerate(d)
    for k, v in items:
        into.append((d, k))
        if isinstance(v, (dict, list)):
            _walk_dict(v, into, path + (k,))
    return into


def _mutate_dict(rng, d, other):
    """Parts of ``other`` (another valid state of the game) moved into ``d``, or parts of ``d``
    swapped, repeated, reordered or dropped: states each consistent, mixed."""
    spots = _walk_dict(d, [])
    if not spots:
        return
    box, key = rng.choice(spots)
    r = rng.random()
    if r < 0.45:
        same = [(b, k) for b, k in _walk_dict(other, []) if k == key and type(b) is type(box)]
        if same:
            b, k = rng.choice(same)
            box[key] = _copy(b[k])
            return
    value = box[key]
    if isinstance(value, list) and value:
        r = rng.random()
        if r < 0.3:
            rng.shuffle(value)
        elif r < 0.6:
            value.append(_copy(rng.choice(value)))
        else:
            value.pop(rng.randrange(len(value)))
    elif isinstance(box, dict):
        peers = [k for k, v in box.items() if k != key and type(v) is type(value)]
        if peers and rng.random() < 0.6:
            k = rng.choice(peers)
            box[key], box[k] = box[k], box[key]
        elif isinstance(value, int) and not isinstance(value, bool):
            box[key] = value + rng.choice((-2, -1, 1, 2))
        else:
            box[key] = None
    elif isinstance(box, list) and len(box) > 1:
        j = rng.randrange(len(box))
        box[key], box[j] = box[j], box[key]


def _copy(v):
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return v


def make_input(game_id, seeds, strings, seed, i):
    """Input ``i``: (kind, serialized GameState bytes) or (kind, None) when the mutation
    has no wire form (a dict the message types cannot carry)."""
    rng = random.Random(f"{seed}:{game_id}:{i}")
    base = rng.choice(seeds)
    r = rng.random()
    if r < 0.05:
        return "valid", base
    if r < 0.3:
        return "bytes", _mutate_bytes(rng, base)
    msg = fagin_pb2.GameState.FromString(base)
    if r < 0.55:
        inner = getattr(msg, game_id)
        desc = codec.message_to_dict(inner)
        for _ in range(rng.randint(1, 3)):
            _mutate_dict(rng, desc, codec.message_to_dict(
                getattr(fagin_pb2.GameState.FromString(rng.choice(seeds)), game_id)))
        out = fagin_pb2.GameState()
        try:
            codec.dict_to_message(desc, getattr(out, game_id))
        except (TypeError, ValueError, OverflowError, AttributeError):
            return "dict", None     # a part moved where the message types cannot carry it
        getattr(out, game_id).SetInParent()
        return "dict", out.SerializeToString()
    kind = "field" if r < 0.85 else "fields"
    for _ in range(1 if kind == "field" else rng.randint(2, 6)):
        try:
            _mutate_field(rng, msg, strings)
        except (TypeError, ValueError, OverflowError):
            pass      # e.g. a closed enum refusing a number: that value cannot be sent
    return kind, msg.SerializeToString()


# ------------------------------------------------------------------ checking

class Defect(Exception):
    pass


def check(game_id, data, rng):
    """Runs ``data`` through the server's decoding path; returns "accepted" or "refused",
    raises Defect (with the traceback) for anything else."""
    msg = codec.parse(fagin_pb2.GameState, data)
    if isinstance(msg, codec.Undecodable):
        return "refused"
    try:
        game, state = codec.decode_state(msg)
    except codec.BadRequest as e:
        if not REFUSAL.match(str(e)):
            raise Defect(f"refusal names no field: {str(e)[:200]!r}") from None
        return "refused"
    except Exception:
        raise Defect(traceback.format_exc()) from None
    try:
        codec.status_of(state)
        if not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                if outcomes:
                    state.apply(rng.choice(outcomes)[0])
            else:
                actions = state.legal_actions()
                if actions:
                    codec.encode_action(game, actions[0], False, state.options())
                    state.apply(rng.choice(actions))
        codec.encode_state(state)
        # One seat's view, decoded as a client would send it back.
        game.from_description(state.view(rng.randrange(state.num_players)))
    except Exception:
        raise Defect("accepted state fails later:\n" + traceback.format_exc()) from None
    return "accepted"


# ------------------------------------------------------------------ workers

def _worker(game_id, seed, w, start, stop, step, skip, time_limit, progress, results):
    """Checks inputs start, start+step, ... < stop but those in ``skip``; ``progress`` holds
    the input being checked.  Reports (w, next input, inputs done, counts, defects)."""
    seeds = valid_states(game_id, seed)
    strings = sorted({v for s in seeds for v in _strings(fagin_pb2.GameState.FromString(s))})
    counts = {}
    found = []
    done = 0
    for i in range(start, stop, step):
        if i in skip:
            continue
        progress.value = i
        t = time.process_time()
        kind, data = make_input(game_id, seeds, strings, seed, i)
        if data is None:
            outcome = "unsendable"
        else:
            try:
                outcome = check(game_id, data, random.Random(i))
            except Defect as e:
                outcome = "crash"
                found.append(("crash", i, kind, str(e)[-2000:]))
        if time.process_time() - t > time_limit:
            found.append(("hang", i, kind, f"took {time.process_time() - t:.1f} s of CPU"))
        counts[(kind, outcome)] = counts.get((kind, outcome), 0) + 1
        done += 1
        if done % CHUNK == 0:
            results.put((w, i + step, done, counts, found))
            counts, found, done = {}, [], 0
    results.put((w, stop, done, counts, found))
    results.put((w, None, None, None, None))       # this worker's share is done


def _strings(msg, out=None):
    out = [] if out is None else out
    for f, v in msg.ListFields():
        if f.type == FieldDescriptor.TYPE_STRING:
            out.extend(v if _repeated(f) else [v])
        elif f.type == FieldDescriptor.TYPE_MESSAGE:
            for item in (v if _repeated(f) else [v]):
                _strings(item, out)
    return out


@dataclass
class Tally:
    inputs: int = 0
    outcomes: dict = field(default_factory=dict)
    defects: list = field(default_factory=list)

    def add(self, counts):
        for (kind, outcome), n in counts.items():
            self.outcomes[(kind, outcome)] = self.outcomes.get((kind, outcome), 0) + n

    def count(self, outcome):
        return sum(n for (_, o), n in self.outcomes.items() if o == outcome)


def fuzz_game(game_id, inputs, workers, seed, time_limit, bar=None):
    """Checks ``inputs`` inputs of one game on ``workers`` processes; returns a Tally.

    Worker ``w`` takes inputs w, w + workers, ...  One that dies or is stuck is
    replaced by a new one that resumes after the last inputs it reported,
    skipping the input it was on (counted as a crash or a hang)."""
    ctx = mp.get_context("fork")
    results = ctx.Queue()
    tally = Tally()
    # Making the valid states takes a while before the first input: not a hang.
    startup = 60.0 + time_limit
    stuck = max(2.0, time_limit * 5)

    def spawn(w, start, skip):
        progress = ctx.Value("q", -1, lock=False)
        p = ctx.Process(target=_worker, args=(game_id, seed, w, start, inputs, workers, skip, time_limit,
                                              progress, results), daemon=True)
        p.start()
        return {"p": p, "progress": progress, "resume": start, "skip": skip, "last": -1,
                "moved": time.monotonic()}

    slots = [spawn(w, w, frozenset()) for w in range(workers)]
    finished = 0
    while finished < workers:
        try:
            w, resume, done, counts, found = results.get(timeout=0.5)
        except Exception:       # queue.Empty: look at the workers
            w = None
        if w is not None:
            if resume is None:
                finished += 1
                continue
            slots[w]["resume"] = resume
            tally.inputs += done
            tally.add(counts)
            tally.defects.extend(found)
            if bar is not None:
                bar.update(done)
                bar.set_postfix(crashes=sum(d[0] == "crash" for d in tally.defects),
                                hangs=sum(d[0] == "hang" for d in tally.defects), refresh=False)
            continue
        now = time.monotonic()
        for w, slot in enumerate(slots):
            p, current = slot["p"], slot["progress"].value
            if current != slot["last"]:
                slot["last"], slot["moved"] = current, now
            if p.is_alive():
                if now - slot["moved"] <= (startup if current < 0 else stuck):
                    continue
                p.kill()
                p.join()
                defect = ("hang", current, "stuck", f"no progress for {now - slot['moved']:.0f} s")
            elif p.exitcode not in (0, None):
                # Died (a segfault, an abort): the input it was on is a crash.
                defect = ("crash", current, "died", f"worker exit code {p.exitcode}")
            else:
                continue
            tally.defects.append(defect)
            tally.inputs += 1
            if bar is not None:
                bar.update(1)
            slots[w] = spawn(w, slot["resume"], slot["skip"] | {current})
    for slot in slots:
        slot["p"].join()
    return tally


# ------------------------------------------------------------------ live server

def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def server_sample(game_ids, inputs, every, seed):
    """Sends every ``every``-th input of each game to a live server as raw LegalActions and
    Recommend calls; returns {game: (sent, bad statuses)} and whether the server stayed up."""
    import grpc
    proc = subprocess.Popen([sys.executable, "-m", "fagin.server", "--port", "0", "--http-port", "0", "--workers", "2",
                             "--log-level", "WARNING"], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        port = int(re.search(r":(\d+)$", line.strip()).group(1))
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        calls = {name: channel.unary_unary(f"/fagin.v1.Fagin/{name}", request_serializer=None,
                                           response_deserializer=None)
                 for name in ("LegalActions", "Recommend")}
        # RecommendRequest.search (field 3): iterations (field 2) = 20 keeps each call short.
        search = fagin_pb2.SearchSettings(iterations=20).SerializeToString()
        tail = b"\x1a" + _varint(len(search)) + search
        out = {}
        for game_id in game_ids:
            seeds = valid_states(game_id, seed)
            strings = sorted({v for s in seeds for v in _strings(fagin_pb2.GameState.FromString(s))})
            sent, bad = 0, []
            for i in range(0, inputs, every):
                kind, data = make_input(game_id, seeds, strings, seed, i)
                if data is None:
                    continue
                body = b"\x0a" + _varint(len(data)) + data
                for name, request in (("LegalActions", body), ("Recommend", body + tail)):
                    sent += 1
                    try:
                        calls[name](request, timeout=30)
                    except grpc.RpcError as e:
                        if e.code() != grpc.StatusCode.INVALID_ARGUMENT:
                            bad.append((i, name, e.code().name, e.details()))
            out[game_id] = (sent, bad)
        channel.close()
        return out, proc.poll() is None
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


# ------------------------------------------------------------------ main

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, default=1_000_000, help="inputs per game")
    ap.add_argument("--games", default=",".join(GAMES), help="comma-separated game ids")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=2.0, help="CPU seconds an input may take")
    ap.add_argument("--server-sample", type=int, default=0, metavar="N",
                    help="also send every N-th input to a live server (0: none)")
    ap.add_argument("--replay", metavar="GAME:I", help="run one input in this process and show it")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)

    if args.replay:
        game_id, i = args.replay.split(":")
        seeds = valid_states(game_id, args.seed)
        strings = sorted({v for s in seeds for v in _strings(fagin_pb2.GameState.FromString(s))})
        kind, data = make_input(game_id, seeds, strings, args.seed, int(i))
        print(f"{kind} input:", None if data is None else fagin_pb2.GameState.FromString(data)
              if kind != "bytes" else data)
        print(check(game_id, data, random.Random(int(i))) if data is not None else "unsendable")
        return 0

    games = [g for g in args.games.split(",") if g]
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        ap.error(f"unknown games: {', '.join(unknown)}")
    from tqdm import tqdm
    defects = 0
    started = time.monotonic()
    print(f"{'game':16} {'inputs':>9} {'accepted':>9} {'refused':>9} {'unsendable':>10} "
          f"{'crashes':>7} {'hangs':>5} {'s':>7}")
    rows = []
    for game_id in games:
        t = time.monotonic()
        with tqdm(total=args.inputs, desc=game_id, disable=args.quiet, leave=False, smoothing=0.05) as bar:
            tally = fuzz_game(game_id, args.inputs, args.workers, args.seed, args.time_limit, bar)
        crashes = [d for d in tally.defects if d[0] == "crash"]
        hangs = [d for d in tally.defects if d[0] == "hang"]
        defects += len(crashes) + len(hangs)
        rows.append(f"{game_id:16} {tally.inputs:9d} {tally.count('accepted'):9d} {tally.count('refused'):9d} "
                     f"{tally.count('unsendable'):10d} {len(crashes):7d} {len(hangs):5d} "
                     f"{time.monotonic() - t:7.1f}")
        print(rows[-1], flush=True)
        for what, i, kind, detail in (crashes + hangs)[:5]:
            print(f"  {what} at {game_id}:{i} ({kind} mutation; replay with --replay {game_id}:{i})\n"
                  + "\n".join("    " + line for line in detail.strip().splitlines()[-12:]))
    if args.server_sample:
        results, alive = server_sample(games, args.inputs, args.server_sample, args.seed)
        for game_id, (sent, bad) in results.items():
            print(f"server {game_id:16} {sent:7d} calls, {len(bad)} with a status other than OK or "
                  f"INVALID_ARGUMENT")
            for i, name, code, details in bad[:5]:
                print(f"  {name} {game_id}:{i} -> {code}: {details[:200]}")
            defects += len(bad)
        print("server stayed up" if alive else "SERVER DIED")
        defects += 0 if alive else 1
    print(f"{defects} defects in {time.monotonic() - started:.0f} s")
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
