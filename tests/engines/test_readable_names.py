"""Labels and text views name things as the rulebooks do, never by the API's identifiers
(not "character: left_priest" or "draw stay_late")."""
import itertools
import random
import re

import pytest

from fagin.engines import load_game, new_game
from fagin.engines.game import random_moves
from fagin.engines.gangs_of_kyoto import engine as gk
from fagin.engines.gangs_of_kyoto import actions as gk_actions
from fagin.engines.kids_of_london import engine as kol
from fagin.engines.kids_of_london import actions as kol_actions

IDENTIFIER = re.compile(r"\b[a-z]+_[a-z_]+\b")


def test_KL_1_characters_are_named_as_the_rulebook_names_them():
    """KL-1: Merchant, Left Priest, Right Priest, Jeweller, Banker, Prince (the Prince/Comedian
    tile, by the side a label can name alone), Beggar."""
    st = new_game("kids_of_london", 3, seed=1)
    while st.describe()["character"] != "left_priest":
        st = new_game("kids_of_london", 3, seed=random.randrange(1 << 30))
    text = st.render()
    assert "character: Left Priest" in text and "left_priest" not in text
    assert kol_actions.action_label(kol_actions.character_action("left_priest")) == "reveal Left Priest"
    assert kol_actions.action_label(kol_actions.character_action("prince")) == "reveal Prince"
    assert "Left Priest" in kol.summary(st.to_bytes())


def test_GK_2_special_cards_are_named_as_the_rulebook_names_them():
    """GK-2: Discard, Stay Late, Refuse and Bell cards."""
    labels = [gk_actions.action_label(gk.ACTION_DRAW + k) for k in range(len(gk.CARDS))]
    assert "draw Stay Late" in labels and "draw Discard" in labels and "draw Refuse" in labels
    assert "draw Bell card +2" in labels


def _random_moves(game_id, players, seed, most=300):
    """The first ``most`` moves of a seeded random game (:func:`fagin.engines.game.random_moves`)."""
    return itertools.islice(random_moves(load_game(game_id).new_initial_state(players), random.Random(seed)), most)


@pytest.mark.parametrize("game_id, players", [("kids_of_london", 2), ("kids_of_london", 4),
                                              ("gangs_of_kyoto", 3), ("fagins_gang", 3),
                                              ("oliver_twist", 3), ("london", 3)])
def test_no_identifier_in_labels_or_text_views(game_id, players):
    """KL-1, GK-2, FG-7, LN-93: every label and text view of a played game reads without
    identifiers."""
    for st, _, _, _ in _random_moves(game_id, players, seed=5):
        for text in [st.render(), st.render(0)] + [st.action_label(a) for a in st.legal_actions()]:
            assert not IDENTIFIER.search(text), text


RULE_ID = re.compile(r"\b[A-Z]{2}-\d+\b")


@pytest.mark.parametrize("game_id", ["london", "gangs_of_kyoto", "oliver_twist"])
def test_belief_items_and_places_are_named_as_the_components_are(game_id):
    """Analysis beliefs name hidden items by the components' names ("crowbar Tool",
    "starting necklace", "Artful Dodger"), never by identifiers or rule ids."""
    st = new_game(game_id, 3, seed=2)
    places, items = st.game.engine.belief_layout(st.to_bytes(), 0)
    for name in [n for n, _ in places] + [n for n in items if n]:
        assert not IDENTIFIER.search(name) and not RULE_ID.search(name), name


@pytest.mark.parametrize("game_id, players", [("fagins_gang", 2), ("kids_of_london", 3), ("london", 2),
                                              ("oliver_twist", 2), ("gangs_of_kyoto", 2)])
def test_no_rule_id_or_letter_in_labels_or_events(game_id, players):
    """Labels and events speak of the game's things, not of the rulebook's numbering: no rule id
    ("(KL-4)") and no option letter ("a: move urchins")."""
    for _, mover, action, after in _random_moves(game_id, players, seed=7):
        if not mover.is_chance_node():
            for a in mover.legal_actions():
                label = mover.action_label(a)
                assert not RULE_ID.search(label) and not re.match(r"^[a-z]: ", label), label
        for e in mover.events(action, after, 0):
            assert not RULE_ID.search(e["label"]) and not IDENTIFIER.search(e["label"]), e["label"]
            assert not re.search(r"(^|: )[a-z]: ", e["label"]), e["label"]
