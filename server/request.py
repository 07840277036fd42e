"""A RecommendRequest prepared into a SearchJob: its state decoded, its settings checked,
its budget cut to the server's limits and to the call's deadline (each change reported in
``notes``), its trees fitted to the tree-memory budget.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from fagin.search import analysis as analysis_mod
from fagin.search import levels, limits
from fagin.search.ismcts import ROLLOUTS, SearchError
from fagin.search.root_parallel import RootParallelSearch
from fagin.server import records, tree_memory
from fagin.server.codec import BadRequest
from fagin.server.logs import quoted
from fagin.v1 import fagin_pb2

# Algorithms every game supports today, and the search selection each uses; "auto" (the
# default) is the game's choice for the player count (fagin.search.levels).
ALGORITHMS = levels.ALGORITHMS + ("auto",)
SELECTION = levels.SELECTION
DEFAULT_EXPLORATION = limits.DEFAULT_EXPLORATION
# limits keys gamma by selection; requests name an algorithm.
DEFAULT_GAMMA = {name: limits.DEFAULT_GAMMA[sel] for name, sel in SELECTION.items()}

#: gRPC's timeout units (``grpc-timeout``, gRPC core's timeout encoding) by the deadline's size:
#: (below this many ms, a deadline is rounded up to this many ms).  Beyond the table's end,
#: 100-hour units (timeout_rounding_ms).
TIMEOUT_UNITS_MS = ((1_000, 1), (10_000, 10), (100_000, 100), (1_000_000, 1_000), (10_000_000, 10_000),
                    (100_000_000, 100_000), (600_000_000, 600_000), (6_000_000_000, 6_000_000))


def timeout_rounding_ms(remaining_ms):
    """How much later than the client's deadline the server's may be, for a call with
    `remaining_ms` left as the server sees it.  gRPC sends a deadline as a timeout
    (``grpc-timeout``) rounded up to a unit that grows with it: whole ms below 1 s, 10 ms
    below 10 s, 100 ms below 100 s, whole seconds below 1,000 s, 10 s below 10,000 s, 100 s
    below 100,000 s, 10 minutes below 600,000 s, 100 minutes below 6,000,000 s, then 100
    hours, so a 1,501 s deadline reaches the server 9 s late.
    Near a step (within 5 %: the call's way here makes the server see a little less than
    was sent) the next unit is assumed."""
    for below_ms, unit_ms in TIMEOUT_UNITS_MS:
        if remaining_ms < 0.95 * below_ms:
            return float(unit_ms)
    return 360_000_000.0


class DeadlineTooShort(Exception):
    """The call's deadline leaves no time to search."""


@dataclass
class SearchJob:
    """A validated search, ready to run in a worker thread."""

    game: object
    state: object
    seat: int
    searcher: RootParallelSearch    # one part per thread (often just one)
    iterations: int | None          # budget in iterations (None: unlimited)
    time_ms: float | None           # budget in ms, after limits and deadline (None: unlimited)
    settings: fagin_pb2.SearchSettings
    notes: list = field(default_factory=list)
    time_note_if_hit: str | None = None
    # time.monotonic() when the call was accepted: the time budget is wall
    # time from then, waits in the admission queue included, so that a search
    # queued behind others still answers within its deadline.
    started: float | None = None
    min_iterations: int = 1
    # Its trees' bounds (tree_memory.py): nodes a thread at most, and its game's bytes per
    # node (from which the slots a node is counted with follow).
    node_cap: int = 1               # nodes a thread at most
    node_bytes: int = 0             # its game's bytes per node (tree_memory.bytes_per_node)
    # Iterations per thread of its next time slice (scheduler.py adapts it to the
    # measured speed so that a slice lasts about the server's slice_ms).
    slice_iterations: int = 256
    # 0: answer the best move; above 0: a move drawn from policy^(1/temperature).
    temperature: float = 0.0
    # An analysis request's settings, after defaults and limits (None: not one).
    analysis: fagin_pb2.AnalysisSettings | None = None
    # SearchSettings.stop_when_decided applies: every slice stops once the rest of the whole
    # budget could not change the most visited move (``decided_left``).
    decided: bool = False
    # What the searcher had run before this call (a session's kept tree continued,
    # sessions.py): the budget, the answer's iterations and its time count from there.
    base_iterations: int = 0
    base_elapsed_ms: float = 0.0
    # RecommendRequest.session: the settings a kept tree must share to be continued by this
    # search or to continue it (sessions.tree_settings), or None with the reason this search
    # cannot be kept in ``unkept``; the (caller, session, seat) it is kept under once attached, and
    # what the answer reports (None: no session asked).
    tree_settings: dict | None = None
    unkept: str = ""
    session_key: tuple | None = None
    session_report: fagin_pb2.SessionReport | None = None
    # RecommendRequest.ponder_ms, once checked: how long the server may go on searching this
    # search's tree after answering, if it is kept for the session (pondering.py); 0: not.
    ponder_ms: int = 0
    # A continued tree's root position, if not ``state``: the kept root played forward
    # (sessions._by_own_move), which the seat cannot tell from ``state``.
    tree_root: object = None

    @property
    def iterations_done(self):
        """Iterations this call has searched."""
        return self.searcher.iterations - self.base_iterations

    @property
    def elapsed_done_ms(self):
        """Search time of this call."""
        return self.searcher.elapsed_ms - self.base_elapsed_ms

    def decided_left(self, its):
        """What ``run(decided_left=...)`` is told when `its` iterations of the budget are
        left: they, where the decided stop applies; else None."""
        return its if self.decided and its else None

    def remaining(self):
        """(iterations, time_ms) left of the budget; None where unlimited."""
        its = None if self.iterations is None else max(0, self.iterations - self.iterations_done)
        ms = None
        if self.time_ms is not None:
            spent = 0.0 if self.started is None else (time.monotonic() - self.started) * 1000
            ms = max(0.0, self.time_ms - spent)
        return its, ms

    def ends(self):
        """The time.monotonic() instant by which the search will have stopped."""
        return (self.started or time.monotonic()) + (self.time_ms or 0) / 1000


def prepare(request: fagin_pb2.RecommendRequest, config, time_remaining_s=None, path="",
            state_bytes=None) -> SearchJob:
    """Validates a RecommendRequest and builds its search (raises BadRequest), step by step;
    each step checks its fields in turn and adds to ``notes`` what it changed.
    ``state_bytes``: its state's game message, serialized (``codec.state_bytes``), if known."""
    p = (path + ".") if path else ""
    check_session(request.session, p)
    if request.new_session and request.session:
        raise BadRequest(f"{p}new_session: give session (a name of yours) or new_session (a name the "
                         f"server makes), not both")
    game, state, _ = records.decode_position(request, path, state_bytes, seat=request.seat)
    settings = request.search
    notes = []
    algorithm, sampled, level, iterations, time_ms = _asked(settings, game, state, p)
    temperature, analysis = _move_rule(request, settings, level, sampled, p, notes)
    exploration, gamma, threads = _parameters(settings, algorithm, iterations, time_ms, config, p, notes)
    iterations, time_ms, limit_ms, time_note, min_iterations = _budget(
        settings, iterations, time_ms, config, time_remaining_s, p, notes)
    rollout = _rollout(settings, game, state.num_players, limits.per_tree(iterations, threads), SELECTION[algorithm],
                       p, notes)
    # A tree adds at most one node an iteration (plus its root), so a search
    # with an iteration budget reserves no more than it can use.
    node_cap = config.node_cap
    if iterations is not None:
        node_cap = min(node_cap, -(-iterations // threads) + 1)
    per_node = tree_memory.bytes_per_node(game)
    try:
        searcher = RootParallelSearch(state, request.seat, threads=threads, seed=settings.seed,
                                      exploration=exploration, max_nodes=node_cap,
                                      selection=SELECTION[algorithm], gamma=gamma, rollout=rollout,
                                      budget=iterations,
                                      **({"analysis": True, "beliefs": analysis.beliefs}
                                         if analysis is not None else {}))
    except SearchError as e:
        raise BadRequest(f"{p}{e}") from None
    node_cap = _fit_trees(searcher, node_cap, per_node, config.tree_memory_bytes, p, notes)
    final = searcher.parts[0].final
    decided = _stop_when_decided(settings, algorithm, threads, temperature, analysis, iterations, final, notes)
    effective = _effective(settings, searcher, algorithm, temperature, analysis, rollout, gamma, threads,
                           iterations, time_ms, limit_ms, min_iterations)
    effective.stop_when_decided = decided
    job = SearchJob(game, state, request.seat, searcher, iterations, limit_ms, effective, notes, time_note,
                    started=time.monotonic(), min_iterations=min_iterations,
                    node_cap=node_cap, node_bytes=per_node, temperature=temperature, analysis=analysis,
                    decided=decided)
    if request.session or request.new_session:
        job.unkept = _unkept(algorithm, threads, analysis, final)
        if not job.unkept:
            job.tree_settings = tree_settings(game, state, searcher.parts[0], iterations)
    job.ponder_ms = _ponder_ms(request, job, config, p)
    return job


def _ponder_ms(request, job, config, p):
    """RecommendRequest.ponder_ms checked: the pondering this call may have once answered."""
    asked = request.ponder_ms
    if not asked:
        return 0
    if not (request.session or request.new_session):
        raise BadRequest(f"{p}ponder_ms: pondering searches a session's kept tree; give session or "
                         f"new_session too")
    if config.max_ponder_ms == 0:
        job.notes.append("ponder_ms: this server does not ponder (--max-ponder-ms 0); nothing is "
                         "searched after the answer")
        return 0
    if asked > config.max_ponder_ms:
        raise BadRequest(f"{p}ponder_ms: at most {config.max_ponder_ms} ms on this server "
                         f"(--max-ponder-ms), got {asked}")
    if job.tree_settings is None:
        job.notes.append(f"ponder_ms: this search cannot be kept ({job.unkept}), so nothing is "
                         f"pondered after the answer")
        return 0
    return asked


#: The longest RecommendRequest.session accepted.
MAX_SESSION_CHARS = 128


def check_session(session, p):
    """Refuses a session name that is too long or not printable ASCII (it is a key the
    server keeps, and appears in logs)."""
    if len(session) > MAX_SESSION_CHARS:
        raise BadRequest(f"{p}session: at most {MAX_SESSION_CHARS} characters, got {len(session)}")
    bad = next((c for c in session if not " " <= c <= "~"), None)
    if bad is not None:
        raise BadRequest(f"{p}session: printable ASCII characters only, got {bad!r} in {quoted(session)}")


def tree_settings(game, state, part, iterations):
    """What a kept tree and the search that continues it must share: the game and player
    count, the playouts, the exploration, and the settings the game tunes for the budget
    (``limits.tuned``: a cut-off, a prior, ...), by name."""
    players = state.num_players
    return {"game": game.id, "players": players, "rollout": part.rollout, "exploration": part.exploration,
            "tuned settings": tuple(sorted(limits.tuned(game.spec, players, iterations, "ucb").given().items()))}


def _unkept(algorithm, threads, analysis, final="visits"):
    """Why a search cannot be kept for a session, or "" if it can: a tree only continues
    where its root statistics are all the answer reads (``ISMCTS.reroot``)."""
    if SELECTION[algorithm] != "ucb":
        return f"algorithm {algorithm} keeps statistics only the root gathers"
    if final != "visits":
        return f"the game's final-move rule {final!r} reads statistics only the root gathers"
    if threads != 1:
        return f"{threads} threads search {threads} trees"
    if analysis is not None:
        return "an analysis reads statistics only the root gathers"
    return ""


def _stop_when_decided(settings, algorithm, threads, temperature, analysis, iterations, final, notes):
    """Whether SearchSettings.stop_when_decided applies; where it was asked and cannot, the
    note why (the whole budget then runs)."""
    if not settings.stop_when_decided:
        return False
    if iterations is None:
        why = "the search has no iteration budget (time_ms alone)"
    elif SELECTION[algorithm] != "ucb":
        why = f"algorithm {algorithm} recommends by its policy, not by visits"
    elif threads != 1:
        why = f"{threads} threads' visits are merged only at the end"
    elif analysis is not None:
        why = "an analysis request reports on the whole budget"
    elif temperature:
        why = f"the move is drawn at temperature {temperature:g}"
    elif final != "visits":
        why = f"the game's final-move rule {final!r} is not the most visits"
    else:
        return True
    notes.append(f"search.stop_when_decided: not applied: {why}; the whole budget ran")
    return False


def _asked(settings, game, state, p):
    """The search asked for: (algorithm, whether it draws its move, the level or None,
    iterations, time_ms), a level filling in what the request leaves out."""
    if settings.algorithm and settings.algorithm not in ALGORITHMS:
        raise BadRequest(f"{p}search.algorithm: unknown algorithm {quoted(settings.algorithm)}; "
                         f"{game.id} supports: {', '.join(ALGORITHMS)}")
    iterations = settings.iterations if settings.HasField("iterations") else None
    time_ms = settings.time_ms if settings.HasField("time_ms") else None
    asked = settings.algorithm
    level = None
    if settings.HasField("level"):
        try:
            level = levels.level(game.spec, settings.level)
        except ValueError as e:
            raise BadRequest(f"{p}search.{e}") from None
        # A level fills in what the request leaves out; fields given explicitly win.
        if iterations is None and time_ms is None:
            iterations = level.iterations
        if not asked:
            asked = level.algorithm
    algorithm, sampled = levels.resolve(game.spec, state.num_players, asked)
    return algorithm, sampled, level, iterations, time_ms


def _move_rule(request, settings, level, sampled, p, notes):
    """How the move is chosen: (the temperature it is drawn at, 0 for the best; the
    AnalysisSettings, defaults filled in, or None).  An analysis never draws its move."""
    if settings.HasField("temperature"):
        try:
            temperature = levels.check_temperature(settings.temperature, f"{p}search.temperature")
        except ValueError as e:
            raise BadRequest(str(e)) from None
    elif settings.sample_action:
        temperature = 1.0
    elif level is not None and level.temperature:
        temperature = level.temperature
    else:
        temperature = 1.0 if sampled else 0.0
    if not request.HasField("analysis"):
        return temperature, None
    analysis = _analysis_settings(request.analysis, f"{p}analysis", notes)
    # An analysis answers the best estimate, never a draw: its figures are of that move.
    if settings.HasField("temperature") and settings.temperature > 0:
        raise BadRequest(f"{p}search.temperature: an analysis request never draws its move; "
                         f"leave it unset or 0 (analysis.final_move chooses the rule)")
    if settings.sample_action:
        raise BadRequest(f"{p}search.sample_action: an analysis request never draws its move; "
                         f"leave it unset (analysis.final_move chooses the rule)")
    if temperature:
        notes.append(f"analysis: the move is the best by analysis.final_move "
                     f"({analysis.final_move}), not drawn at the temperature {temperature:g} "
                     f"the {'level' if level is not None and level.temperature else 'algorithm'} would use")
    return 0.0, analysis


def _parameters(settings, algorithm, iterations, time_ms, config, p, notes):
    """The search's numbers checked: (exploration, None for the game's tuned value; gamma;
    threads, lowered to the server's workers and the search's maximum)."""
    if iterations is not None and iterations <= 0:
        raise BadRequest(f"{p}search.iterations: must be positive, got {iterations}")
    if time_ms is not None and time_ms <= 0:
        raise BadRequest(f"{p}search.time_ms: must be positive, got {time_ms}")
    # Left out, the game's tuned value (GameSpec.tuned_settings) applies: the search resolves it.
    exploration = settings.exploration if settings.HasField("exploration") else None
    if exploration is not None and not (math.isfinite(exploration) and 0 <= exploration <= limits.MAX_EXPLORATION):
        raise BadRequest(f"{p}search.exploration: must be a number from 0 to "
                         f"{limits.MAX_EXPLORATION:g}, got {exploration}")
    gamma = settings.gamma if settings.HasField("gamma") else DEFAULT_GAMMA[algorithm]
    if settings.HasField("gamma") and algorithm == "ismcts":
        notes.append("search.gamma is used by ismcts_rm and oos only; ismcts ignored it")
    if not (math.isfinite(gamma) and 0 < gamma <= 1):
        raise BadRequest(f"{p}search.gamma: must be above 0 and at most 1, got {gamma}")
    threads = settings.threads if settings.HasField("threads") else 1
    if threads < 1:
        raise BadRequest(f"{p}search.threads: must be at least 1, got {threads}")
    if threads > config.workers:
        notes.append(f"search.threads lowered from {threads} to the server's {config.workers} workers")
        threads = config.workers
    if threads > limits.MAX_THREADS:
        # A server may have more workers than one search may use.
        notes.append(f"search.threads lowered from {threads} to the search maximum {limits.MAX_THREADS}")
        threads = limits.MAX_THREADS
    return exploration, gamma, threads


def _budget(settings, iterations, time_ms, config, time_remaining_s, p, notes):
    """The budget cut to the server's maxima and to the call's deadline: (iterations, time_ms
    as asked after the maxima, the time limit in ms, the note if the search stops at that
    limit, min_iterations); DeadlineTooShort if the deadline leaves no time."""
    if iterations is not None and iterations > config.max_iterations:
        notes.append(f"search.iterations lowered from {iterations} to the server maximum "
                     f"{config.max_iterations}")
        iterations = config.max_iterations
    if time_ms is not None and time_ms > config.max_time_ms:
        notes.append(f"search.time_ms lowered from {time_ms} to the server maximum {config.max_time_ms}")
        time_ms = config.max_time_ms
    if iterations is None and time_ms is None:
        iterations = config.default_iterations
    min_iterations = settings.min_iterations if settings.HasField("min_iterations") else 1
    if iterations is not None and min_iterations > iterations:
        raise BadRequest(f"{p}search.min_iterations: {min_iterations} is more than the search's "
                         f"{iterations} iterations")
    time_note = None
    limit_ms = float(time_ms) if time_ms is not None else None
    if limit_ms is None:
        # Even an iterations-only search never outlives the time maximum.
        limit_ms = float(config.max_time_ms)
        time_note = f"search stopped by the server's time maximum of {config.max_time_ms} ms"
    if time_remaining_s is not None:
        remaining_ms = time_remaining_s * 1000.0
        # The margin covers the answer's way back; the rounding, how late the deadline came.
        available = remaining_ms - config.deadline_margin_ms - timeout_rounding_ms(remaining_ms)
        if available <= 0:
            raise DeadlineTooShort("the call's deadline leaves no time to search")
        if available < limit_ms:
            if time_ms is not None:
                notes.append(f"search.time_ms lowered from {time_ms} to {available:.0f} to meet "
                             f"the call's deadline")
                time_note = None
            else:
                time_note = f"search stopped at {available:.0f} ms to meet the call's deadline"
            limit_ms = available
    return iterations, time_ms, limit_ms, time_note, min_iterations


def _rollout(settings, game, players, iterations, selection, p, notes):
    """The playout policy: the request's, or its game's default for the budget (``iterations``
    a tree) and the selection."""
    rollout = settings.rollout or limits.default_rollout(game.spec, players, iterations, selection)
    if rollout not in ROLLOUTS:
        raise BadRequest(f"{p}search.rollout: unknown rollout {quoted(settings.rollout)}; "
                         f"use one of: {', '.join(ROLLOUTS)}")
    if rollout == "policy" and not game.has_rollout_policy:
        notes.append(f"search.rollout: {game.id} has no rollout policy; rollouts are uniformly random")
    return rollout


def _fit_trees(searcher, node_cap, per_node, budget, p, notes):
    """The node cap, lowered if need be so that the trees at the cap, counted as they
    allocate, fit the tree-memory `budget`: a reservation for the whole search can then be
    granted."""
    threads = len(searcher.parts)
    fit = tree_memory.nodes_within(searcher.parts[0], budget // threads, per_node, 1, node_cap)
    if fit == node_cap:
        return node_cap
    if fit < 1:
        raise BadRequest(f"{p}search.threads: {threads} trees do not fit the server's tree-memory "
                         f"budget of {budget >> 20} MB")
    notes.append(f"search tree capped at {fit} nodes a thread to fit the server's tree-memory "
                 f"budget of {budget >> 20} MB")
    for part in searcher.parts:
        part.cap_nodes(fit)
    return fit


def _effective(settings, searcher, algorithm, temperature, analysis, rollout, gamma, threads,
               iterations, time_ms, limit_ms, min_iterations):
    """The SearchSettings the search runs with, as the answer reports them."""
    effective = fagin_pb2.SearchSettings(algorithm=algorithm, seed=settings.seed,
                                         exploration=searcher.parts[0].exploration,
                                         sample_action=(settings.sample_action or temperature == 1.0)
                                         and analysis is None,
                                         rollout=rollout)
    if temperature:
        effective.temperature = temperature
    if settings.HasField("level"):
        effective.level = settings.level
    if algorithm != "ismcts":
        effective.gamma = gamma
    if settings.HasField("threads"):
        effective.threads = threads
    if iterations is not None:
        effective.iterations = iterations
    if time_ms is not None:
        effective.time_ms = int(limit_ms)
    if settings.HasField("min_iterations"):
        effective.min_iterations = min_iterations
    return effective


def _analysis_settings(given, path, notes):
    """An AnalysisSettings checked, with its defaults filled in (raises BadRequest)."""
    used = fagin_pb2.AnalysisSettings(beliefs=given.beliefs)
    candidates = given.candidates if given.HasField("candidates") else analysis_mod.DEFAULT_CANDIDATES
    if not 1 <= candidates <= analysis_mod.MAX_CANDIDATES:
        raise BadRequest(f"{path}.candidates: must be from 1 to {analysis_mod.MAX_CANDIDATES}, got {candidates}")
    depth = given.pv_depth if given.HasField("pv_depth") else analysis_mod.DEFAULT_PV_DEPTH
    if not 0 <= depth <= analysis_mod.MAX_PV_DEPTH:
        raise BadRequest(f"{path}.pv_depth: must be from 0 to {analysis_mod.MAX_PV_DEPTH}, got {depth}")
    final_move = given.final_move or "visits"
    if final_move not in analysis_mod.FINAL_MOVES:
        raise BadRequest(f"{path}.final_move: unknown rule {quoted(given.final_move)}; "
                         f"use one of: {', '.join(analysis_mod.FINAL_MOVES)}")
    used.candidates = candidates
    used.pv_depth = depth
    used.final_move = final_move
    return used
