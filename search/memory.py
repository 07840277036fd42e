"""A search tree's memory per node, by game: measured by probe searches, raised by the trees
the server has seen.

The server reserves tree memory for a search before it runs (``fagin.server.scheduler``),
counted as the trees allocate (``ISMCTS.bytes_at``) at a game's action slots per node; this
module measures that figure for each game once per process, in a background thread
(``measure_games``), and raises it when a finished tree branched more
(``observe_tree``).
"""
from __future__ import annotations

import math
import random
import threading

#: Bytes of a node and of its table entries (24-byte node, 4-byte hash slots at
#: most twice the node cap rounded up to a power of two).
NODE_FIXED_BYTES = 24 + 16
#: Bytes of one action slot, doubled: the slot block doubles when it grows.
SLOT_BYTES = 2 * 40


def slots_per_node(node_bytes) -> int:
    """The action slots a node is counted with, for a game's bytes per node (the inverse of
    ``measure_bytes_per_node``'s figure: its slots with their margin, a whole number)."""
    return max(1, math.ceil((node_bytes - NODE_FIXED_BYTES) / SLOT_BYTES))


def most_nodes_within(tree, share, slots, start, stop) -> int:
    """The most nodes from `start` to `stop` at which `tree` (an ISMCTS) holds at most `share`
    bytes, counted as it allocates (``ISMCTS.bytes_at`` at `slots` slots a node); ``start - 1``
    if none does.  By bisection, `stop` tried first: the bytes are not quite monotone in the
    nodes (a tree capped lower starts a smaller hash table, and allocates the next one
    sooner), so the answer is the whole range when it fits, else a count that fits within a
    table's few bytes of the most."""
    lo, hi = start - 1, stop
    if hi >= start and tree.bytes_at(hi, slots) <= share:
        return hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if tree.bytes_at(mid, slots) <= share:
            lo = mid
        else:
            hi = mid - 1
    return lo


#: Iterations of the search that measures a game's slots per node, and how many positions.
_PROBE_ITERATIONS = 1000
_PROBE_POSITIONS = 3
#: Margin over the measured slots per node (deeper positions branch differently).
_PROBE_MARGIN = 1.25

_bytes_per_node: dict = {}
_probe_lock = threading.Lock()


def measure_bytes_per_node(game, players=None, positions=_PROBE_POSITIONS, iterations=_PROBE_ITERATIONS):
    """A game's tree memory per node, measured: searches from a few positions
    (the opening and a few random plies on) and the most action slots per node
    they built, with a margin; a node costs NODE_FIXED_BYTES plus SLOT_BYTES
    per slot."""
    from fagin.search.ismcts import ISMCTS, SearchSettings
    worst = 1.0
    for seed in range(positions):
        rng = random.Random(seed)
        state = game.new_initial_state(players or game.spec.max_players)
        state.resolve_chance(seed)
        for _ in range(rng.randrange(0, 12)):
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply(state.sample_chance(rng.randrange(1 << 30)))
            else:
                state.apply(rng.choice(state.legal_actions()))
        while state.is_chance_node():
            state.apply(state.sample_chance(seed))
        if state.is_terminal():
            continue
        # Policy playouts: London's stop early, and the tree's shape is what is measured.
        rollout = "policy" if game.has_rollout_policy else "random"
        search = ISMCTS(state, state.current_player(), SearchSettings(rollout=rollout), seed)
        search.run(iterations=iterations)
        worst = max(worst, search.num_slots / max(1, search.num_nodes))
    return int(NODE_FIXED_BYTES + SLOT_BYTES * worst * _PROBE_MARGIN)


#: A game's figure until its measurement is done: above every game measured (docs/architecture.md, "The server").
#: The server's settings also derive their default node cap from it (``NODE_BYTES_FOR_DEFAULT``).
UNMEASURED_BYTES_PER_NODE = 2048


def bytes_per_node(game) -> int:
    """The game's tree bytes per node: measured (see ``measure_games``), or
    UNMEASURED_BYTES_PER_NODE until then -- never measured here, on the event loop."""
    return _bytes_per_node.get(game.id, UNMEASURED_BYTES_PER_NODE)


_probes_running = 0
_probes_done = threading.Condition()


def measure_games(games):
    """Measures the games' bytes per node in a background thread, once per process
    (a probe takes from a few ms to half a second; the server must not wait for it).
    A probe's tree (about half a MB, once per game and process) is outside the
    tree-memory budget: see ``wait_for_measurements``."""
    global _probes_running

    def run():
        global _probes_running
        try:
            with _probe_lock:
                for game in games:
                    if game.id not in _bytes_per_node:
                        figure = measure_bytes_per_node(game)
                        _bytes_per_node[game.id] = max(figure, _bytes_per_node.get(game.id, 0))
        finally:
            with _probes_done:
                _probes_running -= 1
                _probes_done.notify_all()
    with _probes_done:
        _probes_running += 1
    threading.Thread(target=run, name="fagin-node-bytes", daemon=True).start()


def wait_for_measurements(timeout=None) -> bool:
    """Waits until no probe of ``measure_games`` runs (True), or `timeout` seconds (False):
    for whoever counts the trees alive in the process, which the probes' trees are among."""
    with _probes_done:
        return _probes_done.wait_for(lambda: _probes_running == 0, timeout)


#: Trees smaller than this say too little about a game's branching to raise its figure.
OBSERVE_MIN_NODES = 1000


def observe_tree(game_id, nodes, slots):
    """Raises a game's figure to what a finished tree used, if it branched more than
    the probes did, so that later reservations cover such positions."""
    if nodes >= OBSERVE_MIN_NODES:
        observed = int(NODE_FIXED_BYTES + SLOT_BYTES * slots / nodes * _PROBE_MARGIN)
        if observed > _bytes_per_node.get(game_id, 0):
            _bytes_per_node[game_id] = observed
