"""What a tree will hold before it grows (ISMCTS.bytes_at), for a server's tree-memory
reservations: a tree capped at n nodes never holds more than bytes_at(n) said.

Counting nodes at a flat rate once missed the allocation steps (a first slot chunk of
4,096 slots however small the tree, a slot chunk twice the last one, the table
doubling), so a tree could outgrow its reservation and the server its budget."""
import pytest

from fagin.engines import new_game
from fagin.search.ismcts import ISMCTS


SMALL = (1, 40, 300, 1100, 2000, 5000)
LARGE = SMALL + (9000, 30000, 70000, 140000)      # past a node chunk (65,536 nodes)


@pytest.mark.parametrize("game, players, sizes", [("goofspiel", 2, LARGE), ("kids_of_london", 4, SMALL),
                                                  ("london", 2, SMALL[:-1]), ("oliver_twist", 2, SMALL),
                                                  ("fagins_gang", 3, SMALL[:-1])])
def test_bytes_at_bounds_what_a_capped_tree_holds(game, players, sizes):
    # A server reserves ISMCTS.bytes_at(n) before a slice and caps the tree at n nodes:
    # the tree must never hold more (first chunks, slot chunks twice the last and table
    # doublings included), from an empty tree and from each size the last step left.
    state = new_game(game, players=players, seed=3)
    search = ISMCTS(state, state.current_player(), None, 1)
    assert search.bytes_at(1, 16) > 0 == search.tree_bytes
    for n in sizes:
        predicted = search.bytes_at(n, 16)
        search.cap_nodes(n)
        search.run(iterations=n + n // 2 + 10)
        assert search.num_nodes == n
        assert search.num_slots <= 16 * n
        assert search.tree_bytes <= predicted
        assert search.bytes_at(n, 16) == search.tree_bytes       # nothing to add: what it holds
    with pytest.raises(ValueError, match="nodes"):
        search.bytes_at(1 << 40, 16)
