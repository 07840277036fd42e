"""The arena counts wins for games whose returns are not win/loss (chips, points)."""
from fagin.search.arena import match, wins_of


def test_win_loss_returns_are_the_wins():
    assert wins_of([1.0, 0.0, 0.0]) == [1.0, 0.0, 0.0]
    assert wins_of([0.0, 0.0]) == [0.0, 0.0]          # nobody won (Kids of London can end so)


def test_chip_returns_make_the_highest_the_winner():
    assert wins_of([2.0, -2.0]) == [1.0, 0.0]
    assert wins_of([-3.0, 3.0]) == [0.0, 1.0]
    assert wins_of([0.0, 0.0, 0.0, 0.0][:2]) == [0.0, 0.0]
    assert wins_of([5.0, 5.0, -10.0]) == [0.5, 0.5, 0.0]


def test_a_poker_match_reports_shares_and_mean_returns():
    result = match("kuhn_poker", ["heuristic", "random"], games=40, seed=2)
    assert all(0.0 <= e.share <= 1.0 for e in result.entries)
    assert abs(sum(e.mean_return for e in result.entries)) < 1e-9      # zero-sum
    assert "mean return" in result.table()
