"""London's component data (engines/london/data/*.json) and its loader, engines/london/components.py.

Expected values are read by hand from the component research (scans of the
first-edition cards and board) and from the rulebook's worked examples.
"""
import dataclasses
import json
import re
import subprocess
import sys

import pytest

from fagin.engines.london import components as C


def _summary(card):
    """A card as plain data, to compare with what the research reads on it."""
    powers = lambda ps: [(p.code, dict(p.params)) for p in ps]  # noqa: E731
    act = card.activation
    return {
        "deck": card.deck, "colour": card.colour, "count": card.count, "cost": card.cost, "vp": card.vp,
        "base": card.base, "play": powers(card.play), "permanent": powers(card.permanent),
        "hand": powers(card.hand),
        "activation": None if act is None else
        ((act.cost.kind, act.cost.colour, act.cost.amount), powers(act.effects), act.flip),
    }


def _card(deck, colour, count, cost, vp, base=True, play=(), permanent=(), hand=(), activation=None):
    return {"deck": deck, "colour": colour, "count": count, "cost": cost, "vp": vp, "base": base,
            "play": list(play), "permanent": list(permanent), "hand": list(hand), "activation": activation}


FREE, ANY_CARD, BLUE_CARD = ("none", None, 0), ("expend", "any", 0), ("expend", "blue", 0)
ALL_CARDS = {"covered": True, "flipped": True}

# The rulebook's worked examples (Play Cards: Huguenots, Coffee House, St Paul's
# £10, East India Company £4; Run City: East India Company expend -> £12,
# Woolwich Arsenal £7 -> 5 VP, Almshouses -2 poverty, British Museum +1 VP
# -1 poverty, the Hospital flipped instead), then cards whose powers take
# parameters.
EXPECTED = {
    "huguenots": _card("A", "brown", 1, 0, 0, base=False, hand=[("discard_to_draw", {"cards": 2})]),
    "st_pauls": _card("A", "blue", 1, 10, 6),
    "east_india_company": _card("A", "brown", 1, 4, 2, activation=(ANY_CARD, [("gain_money", {"amount": 12})], True)),
    "woolwich_arsenal": _card("A", "pink", 1, 0, 0,
                              activation=(("money", None, 7), [("gain_vp", {"amount": 5})], True)),
    "almshouses": _card("A", "brown", 1, 0, 0, activation=(FREE, [("discard_poverty", {"amount": 2})], True)),
    "british_museum": _card("B", "blue", 1, 4, 2, activation=(
        FREE, [("gain_vp", {"amount": 1}), ("discard_poverty", {"amount": 1})], False)),
    "hospital_a": _card("A", "blue", 1, 2, 3, activation=(FREE, [("flip_in_place_of_another", {})], True)),
    "hospital_b": _card("B", "blue", 2, 2, 3, activation=(FREE, [("flip_in_place_of_another", {})], True)),
    "coffee_house": _card("A", "brown", 2, 0, 0, play=[("placed_without_expending", {})],
                          activation=(FREE, [("place_from_display_on_this", {})], False)),
    "wren": _card("A", "blue", 1, 0, 0, base=False, hand=[("discard_to_place_any_colour", {"cards": 2})]),
    "jewish_refugees": _card("C", "brown", 2, 0, 0, base=False, hand=[("discard_to_draw", {"cards": 2})]),
    "paupers_c": _card("C", "grey", 5, 0, 0, base=False),
    "school_c": _card("C", "blue", 1, 2, 2, permanent=[("expend_any_colour_for_money", {"amount": 1})],
                      activation=(FREE, [("discard_poverty", {"amount": 1})], False)),
    "underground": _card("C", "pink", 5, 7, 0, activation=(
        ANY_CARD, [("gain_vp", {"amount": 4}), ("place_underground", {"markers": 2})], True)),
    "train_station": _card("C", "brown", 3, 3, 3, activation=(
        ANY_CARD, [("discard_poverty", {"amount": 1}),
                   ("money_per_borough", {"boroughs": "north", "amount": 2})], True)),
    "omnibus": _card("B", "brown", 2, 0, 0, activation=(
        FREE, [("money_per_borough", {"boroughs": "all", "amount": 1})], False)),
    "steamboats": _card("B", "brown", 2, 0, 0, activation=(
        FREE, [("money_per_borough", {"boroughs": "thames", "amount": 2})], True)),
    "shops_b": _card("B", "brown", 2, 0, 0, permanent=[("store_money_on_card", {"amount": 1})], activation=(
        FREE, [("gain_vp", {"amount": 2}), ("discard_poverty", {"amount": 1}), ("collect_money_on_card", {})],
        True)),
    "tower_bridge": _card("C", "pink", 1, 6, 4, activation=(
        FREE, [("money_per_card_in_display", {"colours": ("brown",), "amount": 1, **ALL_CARDS})], False)),
    "town_houses": _card("B", "blue", 2, 4, 0, activation=(
        FREE, [("vp_per_card_in_display", {"colours": ("blue", "pink"), "amount": 1, **ALL_CARDS})], True)),
    "great_exhibition": _card("C", "pink", 1, 3, 0, activation=(BLUE_CARD, [("gain_vp", {"amount": 5})], True)),
    "street_lights": _card("B", "blue", 2, 0, 0, activation=(
        ("money", None, 4), [("gain_vp", {"amount": 1}), ("discard_poverty", {"amount": 2})], False)),
    "leather_industry": _card("B", "brown", 2, 0, 1, activation=(
        FREE, [("gain_money", {"amount": 7}), ("take_poverty", {"amount": 1})], True)),
    "millbank_prison": _card("B", "pink", 1, 5, 0, activation=(
        FREE, [("expend_cards_for_poverty", {"max_cards": 3, "poverty_per_card": 1, "vp_per_card": 1})], True)),
    "bank_of_england": _card("B", "brown", 1, 0, 2, permanent=[("loan_amount", {"amount": 12})]),
    "parliament": _card("C", "pink", 1, 9, 5, permanent=[("draw_count_choice", {"min": 0, "max": 2})]),
}


def test_the_project_files_load():
    assert len(C.cards()) == 76
    assert len(C.board().boroughs) == 20
    assert C.poverty_penalty(0) == 0


def test_deck_and_colour_totals():
    """LN-2, LN-7: 110 cards, 25/50/35 by letter, 50/27/22/11 by colour."""
    per_deck, per_colour = {}, {}
    for card in C.cards():
        per_deck[card.deck] = per_deck.get(card.deck, 0) + card.count
        per_colour[card.colour] = per_colour.get(card.colour, 0) + card.count
    assert per_deck == {"A": 25, "B": 50, "C": 35}
    assert per_colour == {"blue": 27, "brown": 50, "pink": 22, "grey": 11}
    assert sum(per_deck.values()) == 110


@pytest.mark.parametrize("card_id", sorted(EXPECTED))
def test_card_as_the_research_reads_it(card_id):
    assert _summary(C.card(card_id)) == EXPECTED[card_id]


def test_versions_of_one_name():
    by_name = {}
    for card in C.cards():
        by_name.setdefault(card.name, []).append(card)
    assert [(c.deck, c.colour, c.count) for c in by_name["School"]] == \
        [("A", "blue", 1), ("A", "brown", 1), ("C", "blue", 1)]
    assert [(c.deck, c.count) for c in by_name["Paupers"]] == [("A", 2), ("B", 4), ("C", 5)]
    assert [(c.deck, c.count) for c in by_name["Shops"]] == [("B", 2), ("C", 2)]
    assert [(c.deck, c.count) for c in by_name["Hospital"]] == [("A", 1), ("B", 2)]
    assert sum(c.count for c in C.cards() if c.colour == "grey") == 11
    assert all(not c.base for c in C.cards() if c.colour == "grey" or c.hand)


def test_every_power_code_is_declared_documented_and_used():
    doc = C.__doc__
    used = {p.code for card in C.cards() for p in card.powers()}
    assert used == set(C.POWER_CODES), "a declared code no card uses, or the reverse"
    for code, spec in C.POWER_CODES.items():
        assert spec.slot in C.SLOTS and spec.meaning
        entry = re.search(rf"^``{code}`` \(([^)]*)\)\n((?:    .*\n)+)", doc, re.M)
        assert entry, f"{code} is not in the module docstring"
        assert entry.group(1).startswith(spec.slot), code
        for param in spec.params:
            assert param in entry.group(1) or param in entry.group(2) or "parameters as" in entry.group(1), \
                f"{code}: parameter {param} is not documented"


def test_uncertain_readings_carry_notes():
    for card_id in ("train_station", "town_houses", "bridge", "tower_bridge", "fire_brigade", "wren", "shops_b"):
        assert C.card(card_id).notes, card_id
    assert "south" in C.card("train_station").notes
    assert C.board().borough("hampstead").notes and C.board().borough("lambeth").notes


def test_readings_of_the_cards():
    """LN-10: the data follows the scans where the sources differ."""
    assert C.card("tower_bridge").activation is not None and not C.card("tower_bridge").activation.flip
    assert [e.code for e in C.card("school_c").activation.effects] == ["discard_poverty"]
    assert C.card("jewish_refugees").name == "Jewish Refugees"
    docks = sorted(c.name for c in C.cards() if "Dock" in c.name)
    assert docks == ["Albert Dock", "Royal Victoria Dock", "West India Docks"]


def test_records_are_immutable():
    card = C.card("st_pauls")
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.cost = 0
    with pytest.raises(TypeError):
        C.POWER_CODES["new"] = None
    assert isinstance(C.card("bridge").activation.effects[0]["colours"], tuple)


# ------------------------------------------------------------------ the board

def test_board_boroughs():
    """LN-3: banks, the river, costs; LN-8: the starting boroughs; LN-4: 11 building and 10
    Underground counters."""
    b = C.board()
    assert [(x.bank, x.thames) for x in b.boroughs].count(("north", True)) == 5
    assert sum(x.bank == "north" for x in b.boroughs) == 12
    assert sum(x.thames for x in b.boroughs) == 11
    assert b.starting == ("city", "westminster", "southwark_bermondsey")
    got = {x.id: (x.cost, x.cards, x.vp, x.bank) for x in b.boroughs}
    assert got["city"] == (8, 4, 6, "north")            # the Buy Land example: £8, 4 cards
    assert got["westminster"] == (8, 2, 6, "north")
    assert got["southwark_bermondsey"] == (5, 4, 4, "south")
    assert got["hampstead"] == (7, 2, 5, "north")
    assert got["greenwich"] == (3, 5, 2, "south")
    assert (b.building_counters_per_player, b.underground.counters) == (11, 10)
    assert (b.underground.first_in_or_next_to, b.underground.river_crossing_cost,
            b.underground.vp_per_counter) == ("city", 3, 2)


def test_board_adjacency_and_bridges():
    """LN-3, LN-8: 37 symmetric pairs, the four bridges the only river crossings; LN-9: the
    board readings (the corner point and the transcription's extra pairs are not neighbours)."""
    b = C.board()
    edges = b.edges()
    assert len(edges) == 37
    assert sorted(tuple(sorted((a, c))) for a, c, bridge in edges if bridge) == [
        ("battersea", "fulham_chelsea"), ("city", "southwark_bermondsey"),
        ("fulham_chelsea", "wandsworth"), ("lambeth", "westminster")]
    # The rulebook's Underground and Buy Land examples.
    assert b.adjacent("city", "st_pancras") and b.adjacent("city", "westminster")
    assert b.adjacent("city", "bethnal_green_stepney_poplar")
    assert b.adjacent("southwark_bermondsey", "city") and b.is_bridge("southwark_bermondsey", "city")
    assert b.adjacent("southwark_bermondsey", "deptford") and not b.is_bridge("southwark_bermondsey", "deptford")
    assert not b.adjacent("southwark_bermondsey", "bethnal_green_stepney_poplar")
    # The student data's four one-sided extra edges and the corner point are not neighbours.
    for a, c in (("deptford", "bethnal_green_stepney_poplar"), ("greenwich", "bethnal_green_stepney_poplar"),
                 ("greenwich", "southwark_bermondsey"), ("hampstead", "paddington")):
        assert not b.adjacent(a, c) and not b.adjacent(c, a)
    for a, c, _ in edges:
        assert b.adjacent(c, a)


# ------------------------------------------------------------------ poverty

def test_poverty_penalty_table():
    """LN-11: the penalty table, and 3 more for each point above 10."""
    assert [C.poverty_penalty(p) for p in range(11)] == [0, 1, 1, 2, 3, 5, 7, 9, 11, 13, 15]
    assert [C.poverty_penalty(p) for p in (11, 12, 20)] == [18, 21, 45]
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(ValueError, match="points_over_lowest"):
            C.poverty_penalty(bad)


# ------------------------------------------------------------------ corrupted copies are refused

def _write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def _refused(load, path, message):
    """``load`` refuses the file at ``path``, naming it, with ``message``."""
    with pytest.raises(ValueError, match=re.escape(str(path)) + ".*" + message):
        load(path)


def _cards_json():
    return json.loads(C.CARDS_FILE.read_text(encoding="utf-8"))


def _record(data, key, record_id):
    return next(r for r in data[key] if r["id"] == record_id)


def _cards_with(change):
    data = _cards_json()
    change({r["id"]: r for r in data["cards"]})
    return data


CARD_FAULTS = {
    "count zero": (lambda r: r["water_works"].update(count=0), r"cards\[\d+\] 'water_works'\.count"),
    "count wrong": (lambda r: r["water_works"].update(count=3), r"deck A has 26 cards.*water_works x3"),
    "count not an int": (lambda r: r["sewers"].update(count="5"), r"'sewers'\.count"),
    "colour total": (lambda r: r["bridge"].update(colour="blue"), r"colour blue has 29 cards"),
    "unknown power code": (lambda r: r["east_india_company"]["activation"]["effects"][0].update(code="gain_gold"),
                           r"'east_india_company'\.activation\.effects\[0\]\.code: unknown power code 'gain_gold'"),
    "power in the wrong slot": (lambda r: r["bank_of_england"].update(activation={
        "effects": [{"code": "loan_amount", "amount": 12}], "flip": False}),
        r"'bank_of_england'\.activation\.effects\[0\]\.code: loan_amount is a permanent power"),
    "parameter out of range": (lambda r: r["sewers"]["activation"]["effects"][0].update(amount=9),
                               r"'sewers'\.activation\.effects\[0\]\.amount: expected an integer 1\.\.5"),
    "parameter of the wrong type": (lambda r: r["bridge"]["activation"]["effects"][0].update(covered=1),
                                    r"'bridge'\.activation\.effects\[0\]\.covered: expected true or false"),
    "unknown parameter": (lambda r: r["omnibus"]["activation"]["effects"][0].update(per="borough"),
                          r"'omnibus'\.activation\.effects\[0\]: unknown field per"),
    "bad borough set": (lambda r: r["train_station"]["activation"]["effects"][1].update(boroughs="east"),
                        r"'train_station'\.activation\.effects\[1\]\.boroughs"),
    "hand card with a stone base": (lambda r: r["huguenots"].update(base=True), r"'huguenots': a card with a hand"),
    "pauper with a stone base": (lambda r: r["paupers_b"].update(base=True), r"'paupers_b': a grey card"),
    "baseless card with VP": (lambda r: r["wren"].update(vp=1), r"'wren': a card without a stone base"),
    "bad activation cost": (lambda r: r["woolwich_arsenal"]["activation"].update(cost={"kind": "money"}),
                            r"'woolwich_arsenal'\.activation\.cost: missing amount"),
    "unknown field": (lambda r: r["st_pauls"].update(colour_name="blue"), r"'st_pauls': unknown field colour_name"),
    "same version twice": (lambda r: r["hospital_b"].update(deck="A", count=1),
                           r"'hospital_b': repeats cards\[\d+\] 'hospital_a'"),
}


@pytest.mark.parametrize("fault", sorted(CARD_FAULTS))
def test_corrupted_cards_file_is_refused(tmp_path, fault):
    change, message = CARD_FAULTS[fault]
    _refused(C.load_cards, _write(tmp_path, "cards.json", _cards_with(change)), message)


def test_duplicate_json_key_is_refused(tmp_path):
    text = C.CARDS_FILE.read_text(encoding="utf-8").replace('"cost": 10, ', '"cost": 10, "cost": 0, ', 1)
    with pytest.raises(ValueError, match="'cost' appears twice"):
        C.load_cards(_write(tmp_path, "cards.json", text))


def _board_with(change):
    data = json.loads(C.BOARD_FILE.read_text(encoding="utf-8"))
    change({r["id"]: r for r in data["boroughs"]}, data)
    return data


def _cut(boroughs, a, b):
    del boroughs[a]["neighbours"][b]
    del boroughs[b]["neighbours"][a]


BOARD_FAULTS = {
    "asymmetric edge": (lambda r, d: r["city"]["neighbours"].pop("hackney"),
                        r"'hackney'\.neighbours: 'city' is listed here but 'city' does not list 'hackney'"),
    "bridge on one bank": (lambda r, d: (r["city"]["neighbours"].update(westminster="bridge"),
                                         r["westminster"]["neighbours"].update(city="bridge")),
                           r"'city'\.neighbours\.westminster: a bridge must cross the Thames"),
    "bridge on one side only": (lambda r, d: r["lambeth"]["neighbours"].update(westminster="land"),
                                r"'westminster'\.neighbours\.lambeth: a bridge on one side only"),
    "crossing without a bridge": (lambda r, d: (r["city"]["neighbours"].update(southwark_bermondsey="land"),
                                                r["southwark_bermondsey"]["neighbours"].update(city="land")),
                                  r"'city'\.neighbours\.southwark_bermondsey: boroughs on opposite banks"),
    "unknown neighbour": (lambda r, d: (r["hackney"]["neighbours"].update(stratford="land")),
                          r"'hackney'\.neighbours: no borough 'stratford'"),
    "map cut in two": (lambda r, d: (_cut(r, "lewisham", "camberwell"), _cut(r, "lewisham", "deptford"),
                                     _cut(r, "greenwich", "deptford")),
                       r"not connected \(greenwich, lewisham cannot be reached"),
    "a borough missing": (lambda r, d: d["boroughs"].pop(), r"expected the board's 20 boroughs, got 19"),
    "wrong starting borough": (lambda r, d: r["hackney"].update(start=True), r"start must be true exactly"),
    "negative cost": (lambda r, d: r["hampstead"].update(cost=-7), r"'hampstead'\.cost"),
    "bad bank": (lambda r, d: r["lambeth"].update(bank="east"), r"'lambeth'\.bank"),
    "bad underground anchor": (lambda r, d: d["underground"].update(first_in_or_next_to="bank"),
                               r"underground\.first_in_or_next_to"),
}


@pytest.mark.parametrize("fault", sorted(BOARD_FAULTS))
def test_corrupted_board_file_is_refused(tmp_path, fault):
    change, message = BOARD_FAULTS[fault]
    _refused(C.load_board, _write(tmp_path, "board.json", _board_with(change)), message)


@pytest.mark.parametrize("table, beyond, message", [
    ([0, 1, 1, 2, 3, 5, 7, 9, 11, 13, 15], 0, r"beyond: expected an integer 1\.\.20"),
    ([0, 1, 1, 2, 3, 5, 4, 9, 11, 13, 15], 3, r"table\[6\]: 4 VP is less than table\[5\]"),
    ([1, 1, 1, 2, 3, 5, 7, 9, 11, 13, 15], 3, r"table\[0\]"),
    ([0, 1, "1"], 3, r"table\[2\]"),
])
def test_corrupted_poverty_file_is_refused(tmp_path, table, beyond, message):
    _refused(C.load_poverty, _write(tmp_path, "poverty.json", {"table": table, "beyond": beyond}), message)


def test_the_project_files_pass_their_loaders_unchanged(tmp_path):
    # The corruption tests above start from these copies: untouched, they load.
    assert len(C.load_cards(_write(tmp_path, "cards.json", _cards_json()))) == 76
    assert len(C.load_board(_write(tmp_path, "board.json", _board_with(lambda r, d: None))).boroughs) == 20
    assert C.load_poverty(C.POVERTY_FILE) == ((0, 1, 1, 2, 3, 5, 7, 9, 11, 13, 15), 3)


# ------------------------------------------------------------------ packaging

def test_london_is_a_served_game_of_2_to_4_players():
    from fagin.engines import GAMES
    spec = GAMES["london"]
    assert (spec.name, spec.min_players, spec.max_players, spec.spec) == ("London", 2, 4, "seeds/london.md")


def test_components_import_nothing_compiled():
    # Loaded on its own, by path: it must not need fagin's compiled engines; of fagin it
    # takes the rooms' data loader alone.
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('ln_components', {str(C.__file__)!r})\n"
        "m = sys.modules['ln_components'] = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(m)\n"
        "assert len(m.cards()) == 76 and len(m.board().boroughs) == 20\n"
        "print(sorted(n for n in sys.modules if n.startswith('fagin')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # The package and its plain-Python data loader, nothing compiled.
    assert out.stdout.strip() == "['fagin', 'fagin.engines', 'fagin.engines.room_data']"
