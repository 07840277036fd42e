"""One search's settings: ``SearchSettings``, what ``ISMCTS`` takes and ``limits.tuned`` resolves.

A frozen record checked when it is made, each error naming its field.  A field left
out (None) takes the game's tuned value for the player count and budget
(``limits.tuned``, from ``GameSpec.tuned_settings`` and ``GameSpec.budget_settings``), else the
search's default, when a search is made; ``rollout`` is the caller's to choose
(``limits.default_rollout``), uniform where it names none.
"""
from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass

from fagin.search.limits import DEFAULT_MAX_NODES, MAX_NODES, MAX_PRIOR, MAX_WIDEN
from fagin.search.results import FINAL_RULES

#: Selections: UCB1 with availability counts, regret matching (SM-MCTS-RM), outcome sampling.
SELECTIONS = ("ucb", "rm", "os")
#: Rollout settings: "policy" plays out with the game's rollout policy where it
#: has one (uniform otherwise) -- and, where the game also has an evaluation
#: (``GameDef.evaluate``, London), stops after ``GameDef.rollout_depth`` rollout
#: actions and takes the evaluation's estimate; "random" always plays uniformly
#: to the end.
ROLLOUTS = ("policy", "random")
#: The rollout of a search that names none.
DEFAULT_ROLLOUT = "random"
#: What scores a cut-off playout: the game's hand-written ``GameDef.evaluate``, its learned
#: ``GameDef.evaluate_learned``, or "margin": each seat's score margin against the best
#: other seat (``GameDef.scores``, the score as it stands), squashed to (0, 1) by a logistic
#: of ``margin / margin_scale``.
EVALUATIONS = ("handwritten", "learned", "margin")
#: Score units a "margin" evaluation takes for one unit of its logistic (a margin of this
#: many points scores 0.73), when the game's tuned settings name none.
DEFAULT_MARGIN_SCALE = 4.0
#: The widest scale a search accepts.
MAX_MARGIN_SCALE = 1e6
#: Whose view keys a node where another seat than the searching one decides: "own", that
#: seat's own information set; "observer", the searching seat's information set and the
#: decision's legal actions (single-observer ISMCTS); "policy", no node: the other seats
#: play the game's rollout policy in the tree as in the playouts (search/opponents.pyx).
OPPONENT_KEYS = ("own", "observer", "policy")
#: Most rollout actions before a cut-off, and most turns.
MAX_CUTOFF = 100_000
MAX_TURNS = 10_000


@dataclass(frozen=True)
class SearchSettings:
    """How one ISMCTS tree searches (see ``ISMCTS`` for what each setting does).

    ``selection``: "ucb", "rm" or "os"; ``exploration``: UCB's constant; ``gamma``: the
    uniform exploration mixed into regret matching; ``rollout``: "policy" or "random";
    ``prior``, ``opponent_prior``: the progressive bias toward the rollout policy's pick at
    the searching seat's nodes and at the others'; ``cutoff``, ``turns``: where a policy
    playout stops to be scored; ``evaluation``, ``margin_scale``: what scores it; ``final``:
    the final-move rule; ``opponents``: the opponent model; ``widen``: progressive widening;
    ``max_nodes``: the tree's node cap; ``budget``: the iterations the caller means this tree
    to run (None on time alone), for the settings a game tunes by budget; ``analysis``,
    ``beliefs``: gather an analysis's root sums and the worlds' hidden counts.
    """

    selection: str = "ucb"
    exploration: float | None = None
    gamma: float | None = None
    rollout: str | None = None
    prior: float | None = None
    opponent_prior: float | None = None
    cutoff: int | None = None
    turns: int | None = None
    evaluation: str | None = None
    margin_scale: float | None = None
    final: str | None = None
    opponents: str | None = None
    widen: float | None = None
    max_nodes: int = DEFAULT_MAX_NODES
    budget: int | None = None
    analysis: bool = False
    beliefs: bool = False

    def __post_init__(self):
        selection, final, opponents, evaluation = self.selection, self.final, self.opponents, self.evaluation
        margin_scale, widen, turns, cutoff = self.margin_scale, self.widen, self.turns, self.cutoff
        gamma, rollout, exploration, prior, opponent_prior = (self.gamma, self.rollout, self.exploration, self.prior,
                                                              self.opponent_prior)
        if selection not in SELECTIONS:
            raise ValueError(f"selection: 'ucb', 'rm' or 'os', got {selection!r}")
        if self.budget is not None:
            try:
                budget = -1 if isinstance(self.budget, bool) else operator.index(self.budget)
            except TypeError:
                budget = -1
            if budget < 0:
                raise ValueError("budget: a whole number of iterations from 0, or None")
            object.__setattr__(self, "budget", budget)
        if final is not None and final not in FINAL_RULES:
            raise ValueError(f"final: one of {', '.join(FINAL_RULES)}, got {final!r}")
        if opponents is not None and opponents not in OPPONENT_KEYS:
            raise ValueError(f"opponents: one of {', '.join(OPPONENT_KEYS)}, got {opponents!r}")
        if evaluation is not None and evaluation not in EVALUATIONS:
            raise ValueError(f"evaluation: one of {', '.join(EVALUATIONS)}, got {evaluation!r}")
        if margin_scale is not None and (isinstance(margin_scale, bool) or not (
                isinstance(margin_scale, (int, float)) and 0 < margin_scale <= MAX_MARGIN_SCALE)):
            raise ValueError(f"margin_scale: must be a number above 0 and at most {MAX_MARGIN_SCALE:g}, "
                             f"got {margin_scale!r}")
        if widen is not None and (isinstance(widen, bool) or not (isinstance(widen, (int, float))
                                                                  and 0 <= widen <= MAX_WIDEN)):
            raise ValueError(f"widen: must be a number from 0 to {MAX_WIDEN:g}, got {widen!r}")
        if turns is not None and not (isinstance(turns, int) and 0 <= turns <= MAX_TURNS):
            raise ValueError(f"turns: must be from 0 to {MAX_TURNS} turns, got {turns!r}")
        if cutoff is not None and not (isinstance(cutoff, int) and 0 <= cutoff <= MAX_CUTOFF):
            raise ValueError(f"cutoff: must be from 0 to {MAX_CUTOFF} rollout actions, got {cutoff!r}")
        if gamma is not None and not 0 < gamma <= 1:
            raise ValueError(f"gamma: must be in (0, 1], got {gamma}")
        if rollout is not None and rollout not in ROLLOUTS:
            raise ValueError(f"rollout: 'policy' or 'random', got {rollout!r}")
        if exploration is not None and not exploration >= 0:
            raise ValueError(f"exploration: must be >= 0, got {exploration}")
        if not 1 <= self.max_nodes <= MAX_NODES:
            raise ValueError(f"max_nodes: must be in 1..{MAX_NODES}, got {self.max_nodes}")
        if prior is not None and not (prior >= 0 and prior <= MAX_PRIOR):
            raise ValueError(f"prior: must be a number from 0 to {MAX_PRIOR:g}, got {prior}")
        if opponent_prior is not None and (isinstance(opponent_prior, bool) or not (
                isinstance(opponent_prior, (int, float)) and 0 <= opponent_prior <= MAX_PRIOR)):
            raise ValueError(f"opponent_prior: must be a number from 0 to {MAX_PRIOR:g}, got {opponent_prior!r}")

    def replace(self, **changes) -> SearchSettings:
        """These settings with ``changes``, checked again."""
        return dataclasses.replace(self, **changes)

    def given(self) -> dict:
        """{name: value} of the settings given, those not left to the game's tuning or the
        defaults (None); the fields that always have a value (``selection``, ``max_nodes``,
        ``analysis``, ``beliefs``) where they differ from their defaults."""
        out = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is not None and value != f.default:
                out[f.name] = value
        return out


def search_settings(settings: SearchSettings | None = None, **fields) -> SearchSettings:
    """``settings`` (default: all left out) with ``fields`` changed: the one way the
    convenience functions turn their keywords into settings."""
    if settings is None:
        return SearchSettings(**fields)
    if not isinstance(settings, SearchSettings):
        raise TypeError(f"settings: a SearchSettings, got {type(settings).__name__}")
    return dataclasses.replace(settings, **fields) if fields else settings
