"""What a search returns: the root's per-action statistics and the recommendation.

Plain Python, shared by every search (``fagin.search.ismcts``, which re-exports
these names, ``fagin.search.root_parallel``) and by the server.
"""
from dataclasses import dataclass


class SearchError(ValueError):
    """The search cannot run from this state/seat (terminal, chance, no decision pending)."""


class ActionStats:
    """Statistics of one legal action at the root.

    ``label`` may be given as a function of the action id: it is then worked out
    when first read, since a server answering with its cached action messages
    never reads it and labels can be costly.  Compares and hashes by value, like
    the frozen dataclass it replaces: a slotted class is cheaper to build, and a
    result has one per legal action (figures: docs/search.md, "Result objects")."""

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

    def by_action(self):
        return {s.action: s for s in self.stats}


def best_action(stats, selection):
    """The recommended one of a root's ActionStats: the most visited (ties: the
    higher mean value) for UCB; the highest average-strategy probability for
    regret-matching selections ("rm", "os").  Lower ids win remaining ties."""
    if selection in ("rm", "os"):
        return max(stats, key=lambda s: (s.policy, s.visits, -s.action))
    return max(stats, key=lambda s: (s.visits, s.mean_value, -s.action))
