"""fagin: an AI opponent service for tabletop games with hidden information.

Quick start::

    from fagin.engines import load_game
    from fagin.search import ismcts

    game = load_game("kids_of_london")
    state = game.new_initial_state(4).resolve_chance(seed=1)
    result = ismcts.run_search(state, seat=0, iterations=2000, seed=7)
    print(state.action_label(result.action), result.stats)
"""
__version__ = "0.1.0"
