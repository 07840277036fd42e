"""What a search returns: the root's per-action statistics and the recommendation.

Plain Python, shared by every search (``fagin.search.ismcts``, which re-exports
these names, ``fagin.search.root_parallel``) and by the server.
"""
import math
from dataclasses import dataclass


class SearchError(ValueError):
    """The search cannot run from this state/seat (terminal, chance, no decision pending)."""


class ActionStats:
    """Statistics of one legal action at the root.

    ``label`` may be given as a function of the action id: it is then worked out
    when first read, since a server answering with its cached action messages
    never reads it and labels can be costly.  Compares and hashes by value.  A
    slotted class rather than a dataclass, because a result builds one per legal
    action and a slotted class is the cheaper to build (docs/search.md, "Result
    objects")."""

    __slots__ = ("action", "visits", "mean_value", "policy", "_label")

    def __init__(self, action, label, visits, mean_value, policy):
        self.action = action
        self._label = label
        self.visits = visits
        self.mean_value = mean_value
        self.policy = policy

    @property
    def label(self):
        label = self._label
        if not isinstance(label, str):
            label = self._label = label(self.action)
        return label

    def with_counts(self, visits, mean_value, policy):
        """These statistics for the same action with other counts (the label as given here)."""
        return ActionStats(self.action, self._label, visits, mean_value, policy)

    def _fields(self):
        return (self.action, self.label, self.visits, self.mean_value, self.policy)

    def __eq__(self, other):
        if type(other) is not ActionStats:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self):
        return hash(self._fields())

    def __repr__(self):
        return (f"ActionStats(action={self.action!r}, label={self.label!r}, visits={self.visits!r}, "
                f"mean_value={self.mean_value!r}, policy={self.policy!r})")


@dataclass(frozen=True)
class SearchResult:
    """What a search concluded: the recommended action and the evidence."""

    action: int
    label: str
    stats: list
    iterations: int
    nodes: int
    elapsed_ms: float
    stop_reason: str
    #: The standard error of each root action's mean return (action -> error), for actions
    #: with two visits or more; the final-move rules "lcb" and "prior" read it.
    spreads: dict = None
    #: Root descents in which the rollout policy picked each action (action -> count), where
    #: the search has a prior; the final-move rule "prior" holds to the most picked.
    picks: dict = None

    def by_action(self):
        return {s.action: s for s in self.stats}


#: Final-move rules (UCB selection): ``"visits"``, the most visited root action; ``"lcb"``, the
#: highest lower confidence bound of the mean (mean less LCB_Z standard errors) among actions
#: with at least a tenth of the most visits; ``"prior"``, the rollout policy's pick unless
#: another action's mean leads it by more than LCB_Z standard errors of the difference.
FINAL_RULES = ("visits", "lcb", "prior")
#: Standard errors below the mean of the final-move rules' confidence bounds (one-sided 95 %).
LCB_Z = 1.645


def best_action(stats, selection, final="visits", spreads=None, picks=None):
    """The recommended one of a root's ActionStats: for UCB, by the final-move rule
    ``final`` (see :data:`FINAL_RULES`; ``spreads`` and ``picks`` as in
    :class:`SearchResult`, and "visits" where they are missing); the highest
    average-strategy probability for regret-matching selections ("rm", "os").
    "visits" breaks ties by the higher mean value; lower ids win remaining ties."""
    if selection in ("rm", "os"):
        return max(stats, key=lambda s: (s.policy, s.visits, -s.action))
    if final == "prior" and spreads and picks:
        pick = max(picks, key=lambda a: (picks[a], -a))
        held = next((s for s in stats if s.action == pick), None)
        if held is not None and pick in spreads:
            best, margin = held, 0.0
            for s in stats:
                if s.action != pick and s.action in spreads:
                    lead = s.mean_value - held.mean_value - LCB_Z * math.hypot(spreads[s.action], spreads[pick])
                    if lead > margin:
                        best, margin = s, lead
            return best
    if final == "lcb" and spreads:
        most = max(s.visits for s in stats)
        fit = [s for s in stats if s.visits >= 0.1 * most and s.action in spreads]
        if fit:
            return max(fit, key=lambda s: (s.mean_value - LCB_Z * spreads[s.action], s.visits, -s.action))
    return max(stats, key=lambda s: (s.visits, s.mean_value, -s.action))
