"""Analysis-grade answers from an analysis search: for each candidate action the
asking seat's win probability (every seat's), the expected score margin against the best
other seat, their standard errors and lower confidence bounds, the prior the search gave
the action and its principal variation; the position's value for every seat; and the
search's beliefs about what the asking seat cannot see.

It reads what an :class:`~fagin.search.ismcts.ISMCTS` made with ``analysis=True`` (and
``beliefs=True``) gathered while it searched (``analysis_sums``, ``node_visits``), over one
part or the parts of a :class:`~fagin.search.root_parallel.RootParallelSearch`, and
touches nothing on the search path.  Everything here depends only on what the asking seat
knows: the sums come from the search (which sees the position only through the seat's
determinizations), and principal variations follow the tree through one determinization
drawn from the request's seed, so twin positions that differ only in what the seat cannot
see get the same analysis for the same seed.

    from fagin.search.ismcts import ISMCTS, SearchSettings
    from fagin.search.analysis import analyse
    s = ISMCTS(state, 0, SearchSettings(analysis=True, beliefs=True), seed=7)
    s.run(iterations=2000)
    report = analyse([s], state, seat=0, seed=7, beliefs=True)
    for a in report.candidates():
        print(a.label, a.win_probability, a.margin, [m.label for m in a.pv])
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from fagin.search import calibration

# The lower confidence bounds are the estimate less Z standard errors (a two-sided 95 %
# normal interval's lower end).
Z = 1.96
# Final-move rules of an analysis request (AnalysisSettings.final_move).
FINAL_MOVES = ("visits", "value", "lcb")
DEFAULT_CANDIDATES = 5
MAX_CANDIDATES = 256
DEFAULT_PV_DEPTH = 4
MAX_PV_DEPTH = 64
# The most moves a principal variation takes to finish the asking seat's turn: a guard
# against an engine whose turn would never end (a London turn is a few dozen decisions).
MAX_TURN_MOVES = 400
# Actions the "lcb" rule may pick: at least this share of the most visited one's visits
# (an action tried a handful of times has a bound too loose to compare).
LCB_MIN_SHARE = 0.1
_PV_SALT = 0x5056


@dataclass
class PVMove:
    """One move of a principal variation: ``visits`` is its node's visits in the search's
    tree; 0 past the tree (the game's rollout policy finishing the asking seat's turn) and
    for chance outcomes (``seat`` -1), drawn in the determinization the variation follows."""
    action: int
    label: str
    seat: int
    visits: int


@dataclass
class ActionAnalysis:
    """A root action's analysis (see :func:`analyse`)."""
    action: int
    label: str
    visits: int
    value: float                       # the asking seat's mean return
    win_probability: float | None      # the asking seat's (None: the game's returns are not wins)
    win_probabilities: list            # every seat's, by seat ([] where returns are not wins)
    win_error: float
    win_lcb: float
    margin: float | None               # expected score margin against the best other seat (None: no scores)
    margin_error: float
    margin_lcb: float
    prior: float
    rank: int = 0                      # 1 for the best candidate, ...; 0: not a candidate
    pv: list = field(default_factory=list)
    close_to_best: bool = False        # a candidate after the first within the errors of it (close_calls)


@dataclass
class BeliefItem:
    item: str
    share: float      # of the determinizations, those with at least one copy there
    copies: float     # copies there, on average (the share for a single card)


@dataclass
class BeliefPlace:
    place: str
    seat: int | None  # whose place it is (None: the table's, e.g. the deck)
    items: list       # BeliefItem, most copies first


@dataclass
class Analysis:
    actions: list                      # ActionAnalysis for every legal action, in id order
    best: int                          # the recommended action under `final_move`
    visits: int                        # root visits
    values: list                       # the position's mean return for every seat
    win_probabilities: list            # every seat's ([] where returns are not wins)
    margins: list                      # every seat's margin ([] without scores)
    beliefs: list                      # BeliefPlace (empty unless asked for)
    determinizations: int              # those the beliefs were tallied from
    final_move: str = "visits"
    too_close_to_call: bool = False    # the second candidate is close to the best (close_calls)

    def candidates(self):
        """The candidates, best first."""
        return sorted((a for a in self.actions if a.rank), key=lambda a: a.rank)

    def by_action(self):
        return {a.action: a for a in self.actions}


def _merged_sums(parts):
    """The parts' analysis sums added up."""
    root, picks = {}, {}
    draws, copies, present = 0, None, None
    for part in parts:
        sums = part.analysis_sums()
        if sums is None:
            raise ValueError("analysis: the search was not made with analysis=True")
        for a, (n, r, m, r2, m2) in sums["root"].items():
            if a in root:
                n0, r0, m0, r20, m20 = root[a]
                root[a] = (n0 + n, [x + y for x, y in zip(r0, r)], [x + y for x, y in zip(m0, m)],
                           r20 + r2, m20 + m2)
            else:
                root[a] = (n, list(r), list(m), r2, m2)
        for a, c in sums["picks"].items():
            picks[a] = picks.get(a, 0.0) + c
        draws += sums["determinizations"]
        if copies is None:
            copies, present = list(sums["copies"]), list(sums["present"])
        else:
            copies = [x + y for x, y in zip(copies, sums["copies"])]
            present = [x + y for x, y in zip(present, sums["present"])]
    return root, picks, draws, copies or [], present or []


def _error(n, total, square, pooled_var):
    """The standard error of a mean of n samples (sum `total`, square sum `square`); with
    fewer than 2 samples the spread is the root's pooled one."""
    if n <= 0:
        return math.sqrt(pooled_var)
    if n < 2:
        return math.sqrt(pooled_var / n)
    mean = total / n
    var = max(0.0, (square - n * mean * mean) / (n - 1))
    return math.sqrt(var / n)


def _node_visits(parts, seat, key):
    """{action: visits} of seat's node at `key`, over every part's tree."""
    merged = {}
    for part in parts:
        v = part.node_visits(seat, key)
        if v:
            for a, n in v.items():
                merged[a] = merged.get(a, 0) + n
    return merged


def principal_variation(parts, state, seat, first, depth=DEFAULT_PV_DEPTH, seed=0):
    """The most visited continuation after the asking seat's root action `first`: the rest
    of that seat's turn whole (past the tree, the game's rollout policy's picks), then up to
    `depth` more moves while the tree goes on, through one determinization for `seat`
    drawn from `seed` (chance outcomes drawn there too).  Where the search modelled the other
    seats as the rollout policy (ISMCTS ``opponents="policy"``: they have no nodes), their
    moves are the policy's picks, with no visits.  A list of :class:`PVMove`."""
    modelled = all(getattr(part, "opponents", "own") == "policy" for part in parts)
    world = state.with_seat_to_act(seat).determinize(seat, (seed ^ _PV_SALT) & 0xFFFFFFFFFFFFFFFF)
    root_visits = _node_visits(parts, seat, world.infoset_key(seat))
    moves = [PVMove(first, world.action_label(first), seat, root_visits.get(first, 0))]
    world.apply(first)
    in_turn, beyond, step = True, 0, 0
    while step < MAX_TURN_MOVES + depth:
        step += 1
        p = world.current_player()
        if world.is_terminal():
            break
        if p < 0:                      # chance
            if not in_turn and beyond >= depth:
                break
            outcome = world.sample_chance(seed + step)
            moves.append(PVMove(outcome, world.action_label(outcome), -1, 0))
            world.apply(outcome)
            if not in_turn:
                beyond += 1
            continue
        if p != seat:
            in_turn = False
        if not in_turn and beyond >= depth:
            break
        legal = world.legal_actions()
        visits = _node_visits(parts, p, world.infoset_key(p))
        best = max((a for a in legal if visits.get(a, 0) > 0), key=lambda a: (visits[a], -a), default=None)
        n = visits.get(best, 0) if best is not None else 0
        if best is None:
            if not in_turn and not (modelled and p != seat):
                break
            best = world.rollout_action(seed + step)
            if best is None or best not in legal:
                break
        moves.append(PVMove(best, world.action_label(best), p, n))
        world.apply(best)
        if not in_turn:
            beyond += 1
    return moves


def beliefs_of(state, seat, copies, present, draws):
    """BeliefPlace for every place with a copy of something in some determinization."""
    if draws <= 0 or not copies:
        return []
    places, items = state.game.engine.belief_layout(state.to_bytes(), seat)
    width = len(items)
    out = []
    for i, (name, owner) in enumerate(places):
        row = []
        for j in range(width):
            c = copies[i * width + j]
            if c > 0 and items[j] is not None:
                row.append(BeliefItem(items[j], present[i * width + j] / draws, c / draws))
        if row:
            # One entry per name: versions of one card (London) read as one.
            named = {}
            for b in row:
                if b.item in named:
                    named[b.item].copies += b.copies
                    named[b.item].share = max(named[b.item].share, b.share)
                else:
                    named[b.item] = BeliefItem(b.item, b.share, b.copies)
            out.append(BeliefPlace(name, owner, sorted(named.values(), key=lambda b: (-b.copies, b.item))))
    return out


def _calibrate(x, fmap, seat):
    """An action's win probabilities through the game's calibration map
    (:mod:`fagin.search.calibration`): the asking seat's estimate mapped, its error carried
    by the map's mean slope over the raw value's interval (the map rises in steps: at the
    slope of one point a bound would sit on its estimate), its bound Z errors below; the
    other seats' shares scaled to fill the rest.  ``value`` stays the raw mean return."""
    if not x.visits:
        return
    raw = x.win_probability
    x.win_probability = fmap(raw)
    x.win_error = fmap.carry_error(raw, x.win_error, Z)
    x.win_lcb = x.win_probability - Z * x.win_error
    x.win_probabilities = calibration.calibrate_seats(fmap, x.win_probabilities, seat)


def estimate(x):
    """What a candidate is compared on: the asking seat's win probability (a seed game's),
    else its mean return (a reference game's); `win_error` is the error of either."""
    return x.value if x.win_probability is None else x.win_probability


def close_calls(ranked):
    """Marks the candidates after the first (`ranked`, best first) that are close to it: the
    difference of their estimates within Z combined standard errors,
    ``|p_best - p_x| <= Z * sqrt(err_best² + err_x²)``, so that the search cannot tell them
    apart; another run (another seed) may well rank them the other way.  Returns whether the
    second candidate is close, i.e. whether the choice is too close to call.  A candidate
    without visits has no estimate to compare and is never close."""
    best = ranked[0]
    for x in ranked[1:]:
        x.close_to_best = bool(best.visits and x.visits and abs(estimate(best) - estimate(x))
                               <= Z * math.hypot(best.win_error, x.win_error))
    return len(ranked) > 1 and ranked[1].close_to_best


def _rank_key(final_move):
    if final_move == "value":
        # the raw mean return: the calibrated win probability's order, without its ties
        return lambda a: (a.value, a.visits, -a.action)
    if final_move == "lcb":
        return lambda a: (a.win_lcb, a.visits, -a.action)
    return lambda a: (a.visits, a.value, -a.action)


def analyse(parts, state, seat, candidates=DEFAULT_CANDIDATES, pv_depth=DEFAULT_PV_DEPTH, beliefs=False,
            final_move="visits", seed=0, labels=None, own_best=None):
    """The :class:`Analysis` of the searches `parts` (analysis searches of `state` for
    `seat`, e.g. ``RootParallelSearch.parts``).  `candidates` actions (the best under
    `final_move`: "visits", "value" or "lcb") get every statistic and a principal
    variation `pv_depth` moves past the seat's turn; the others only their visits.
    ``labels``: {action: label}, else the state labels them.  ``own_best``: the action the
    search itself recommends (``SearchResult.action``), which "visits" ranks first (for
    "ismcts_rm" and "oos" it is the highest-policy action, not the most visited)."""
    if final_move not in FINAL_MOVES:
        raise ValueError(f"final_move: one of {', '.join(FINAL_MOVES)}, got {final_move!r}")
    root, picks, draws, copies, present = _merged_sums(parts)
    game = state.game
    wins = game.spec.reference is None       # seed games: 1 for a win, 0 for a loss (tests check)
    scored = game.has_scores
    players = state.num_players
    actor = state.with_seat_to_act(seat)
    legal = actor.legal_actions()
    total = sum(root.get(a, (0,))[0] for a in legal)
    r_all = [sum(root[a][1][p] for a in root) for p in range(players)]
    m_all = [sum(root[a][2][p] for a in root) for p in range(players)]
    r2_all = sum(root[a][3] for a in root)
    m2_all = sum(root[a][4] for a in root)

    def pooled(sums, squares, unknown):
        """The variance of every root iteration's value (`unknown` below 2 of them)."""
        if total < 2:
            return unknown
        mean = sums[seat] / total
        return max(0.0, (squares - total * mean * mean) / (total - 1))

    # With no spread to measure, a share's variance is at most 1/4; a margin's is unknown (0).
    var_r, var_m = pooled(r_all, r2_all, 0.25), pooled(m_all, m2_all, 0.0)
    use_prior = any(getattr(p, "prior", 0) > 0 for p in parts) and sum(picks.values()) > 0
    pick_total = sum(picks.get(a, 0.0) for a in legal)
    out = []
    for a in legal:
        n, r, m, r2, m2 = root.get(a, (0, [0.0] * players, [0.0] * players, 0.0, 0.0))
        value = r[seat] / n if n else 0.0
        err = _error(n, r[seat], r2, var_r)
        merr = _error(n, m[seat], m2, var_m) if scored else 0.0
        margin = (m[seat] / n if n else 0.0) if scored else None
        prior = (picks.get(a, 0.0) / pick_total) if use_prior and pick_total else 1.0 / len(legal)
        label = labels[a] if labels and a in labels else actor.action_label(a)
        out.append(ActionAnalysis(
            a, label, n, value, value if wins else None,
            [x / n if n else 0.0 for x in r] if wins else [], err, value - Z * err,
            margin, merr, (margin - Z * merr) if scored else 0.0, prior))
    fmap = calibration.calibration_map(game.spec.id, players) if wins else None
    if fmap is not None:
        for x in out:
            _calibrate(x, fmap, seat)
    key = _rank_key(final_move)
    pool = [x for x in out if x.visits > 0] or out
    if final_move == "lcb":
        most = max(x.visits for x in pool)
        pool = [x for x in pool if x.visits >= LCB_MIN_SHARE * most] or pool
    ranked = sorted(pool, key=key, reverse=True)
    if final_move == "visits" and own_best is not None:
        ranked.sort(key=lambda x: x.action != own_best)      # stable: the rest keep their order
    ranked += sorted((x for x in out if x not in ranked), key=key, reverse=True)
    for i, x in enumerate(ranked[:max(1, candidates)]):
        x.rank = i + 1
        x.pv = principal_variation(parts, state, seat, x.action, pv_depth, seed)
    too_close = close_calls(ranked[:max(1, candidates)])
    values = [x / total if total else 0.0 for x in r_all]
    root_wins = list(values) if wins else []
    if fmap is not None and total:
        root_wins = calibration.calibrate_seats(fmap, values, seat)
    return Analysis(
        out, ranked[0].action, total, values, root_wins,
        [x / total if total else 0.0 for x in m_all] if scored else [],
        beliefs_of(state, seat, copies, present, draws) if beliefs else [], draws if beliefs else 0,
        final_move, too_close)
