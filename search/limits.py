"""The search's limits and defaults, in one place.

The search (``ismcts.pyx``, ``settings.py``), the server's settings (``server/config.py``),
its request validation (``server/request.py``) and the command line read
them from here; the proto comments and docs/search.md quote them.
"""

#: Most iterations one search call accepts (below 2**32: a tree counts visits in 32 bits;
#: a search that runs longer on time alone stops at that count).
MAX_ITERATIONS = 10**9
#: Longest time budget one search call accepts, in ms (a day).
MAX_TIME_MS = 86_400_000
#: Largest node cap of one search tree.
MAX_NODES = 1 << 30
#: Default node cap of one search tree (per search thread).
DEFAULT_MAX_NODES = 4_000_000
#: Iterations of a search given no budget.
DEFAULT_ITERATIONS = 1000
#: UCB exploration constant: default and accepted range.
DEFAULT_EXPLORATION = 0.7
MAX_EXPLORATION = 100.0
#: Uniform exploration mixed into regret matching, by selection ("rm", "os").
DEFAULT_GAMMA = {"ucb": 0.1, "rm": 0.1, "os": 0.6}
#: Most threads (root-parallel parts) one search may use.
MAX_THREADS = 256
#: ISMCTS progressive bias toward the rollout policy's pick (UCB with "policy" rollouts):
#: the default for games whose policy playouts stop and evaluate (GameDef.rollout_depth), and
#: the largest accepted.
PRIOR_WEIGHT = 10.0
MAX_PRIOR = 100.0
#: Largest ISMCTS progressive-widening factor (a node takes ceil(widen * sqrt(n + 1)) of its actions).
MAX_WIDEN = 1000.0


#: The settings a game's ``GameSpec.tuned_settings`` may tune (fields of ``settings.SearchSettings``;
#: ``rollout`` is the caller's to pass, see :func:`default_rollout`).
TUNED_SETTINGS = ("exploration", "prior", "opponent_prior", "cutoff", "final", "evaluation", "opponents", "turns",
                  "margin_scale", "widen", "rollout")


def tuned(spec, players: int, iterations: int | None = None, selection: str = "ucb"):
    """The game's tuned search settings for ``players`` seats (``GameSpec.tuned_settings``), a
    ``settings.SearchSettings`` whose untuned fields are left out (None): the entry
    for that count, else the entry for every count (None), else none; then, for a UCB search
    of ``iterations`` a tree (None: on time alone), the ``GameSpec.budget_settings`` entries
    for that count (or every count) that it reaches, smallest threshold first.  Those were
    measured with UCB, one tree: regret matching and outcome sampling keep ``tuned_settings``."""
    table = dict(getattr(spec, "tuned_settings", ()) or ())
    entry = dict(table.get(players, table.get(None)) or {})
    if iterations is not None and selection == "ucb":
        for least, count, settings in sorted(getattr(spec, "budget_settings", ()) or (), key=lambda e: e[0]):
            if count in (None, players) and iterations >= least:
                entry.update(settings)
    unknown = set(entry) - set(TUNED_SETTINGS)
    if unknown:
        raise ValueError(f"{spec.id}: GameSpec.tuned_settings tunes {sorted(unknown)}; tunable: {', '.join(TUNED_SETTINGS)}")
    # Imported here: settings.py reads this module's limits.
    from fagin.search.settings import SearchSettings
    return SearchSettings(**entry)


def default_rollout(spec, players: int, iterations: int | None = None, selection: str = "ucb") -> str:
    """The playout policy of a search that names none: the game's for this budget a tree
    (``GameSpec.budget_settings``), else its own (``GameSpec.rollout``)."""
    return tuned(spec, players, iterations, selection).rollout or spec.rollout


def per_tree(iterations: int | None, threads: int = 1) -> int | None:
    """The iterations each of ``threads`` root-parallel trees runs of a search's ``iterations``
    (None: on time alone): what ``GameSpec.budget_settings``'s thresholds count."""
    return None if iterations is None else iterations // max(1, threads)
