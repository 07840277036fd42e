"""SearchSettings: the one record ISMCTS takes and limits.tuned returns, each bad field refused
by name when the record is made."""
import pytest

from fagin.engines import new_game
from fagin.engines.registry import GAMES
from fagin.search import limits
from fagin.search.ismcts import ISMCTS, run_search
from fagin.search.settings import SearchSettings


@pytest.mark.parametrize("field, value", [
    ("selection", "greedy"), ("budget", -1), ("final", "best"), ("opponents", "all"),
    ("evaluation", "oracle"), ("margin_scale", 0), ("widen", -1.0), ("turns", 10_001), ("cutoff", -1),
    ("gamma", 0.0), ("rollout", "smart"), ("exploration", -1.0), ("max_nodes", 0), ("prior", 101.0),
    ("opponent_prior", True),
])
def test_a_bad_field_is_refused_by_its_name(field, value):
    with pytest.raises(ValueError, match=rf"^{field}: "):
        SearchSettings(**{field: value})


def test_settings_are_a_frozen_record_changed_by_replace():
    s = SearchSettings(rollout="policy", prior=4.0)
    with pytest.raises(AttributeError):
        s.prior = 5.0
    assert s.replace(prior=5.0) == SearchSettings(rollout="policy", prior=5.0)
    assert s.given() == {"rollout": "policy", "prior": 4.0}
    with pytest.raises(ValueError, match="^prior: "):
        s.replace(prior=-1.0)


def test_tuned_returns_settings_that_a_search_takes():
    spec = GAMES["london"]
    tuned = limits.tuned(spec, 3)
    assert isinstance(tuned, SearchSettings)
    st = new_game("london", 3, seed=1)
    while st.is_chance_node():
        st.resolve_chance(1)
    s = ISMCTS(st, st.current_player(), tuned.replace(rollout="policy"), 1)
    assert s.evaluation == (tuned.evaluation or "handwritten")


def test_a_search_takes_a_settings_record_and_nothing_else():
    st = new_game("kuhn_poker", 2, seed=1)
    while st.is_chance_node():
        st.resolve_chance(1)
    with pytest.raises(TypeError, match="^settings: a SearchSettings"):
        ISMCTS(st, st.current_player(), {"rollout": "random"})
    assert (run_search(st, st.current_player(), SearchSettings(selection="rm"), iterations=200, seed=3).stats
            == run_search(st, st.current_player(), iterations=200, seed=3, selection="rm").stats)
