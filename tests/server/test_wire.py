"""The one-pass reader of serialized states (server/wire.pyx) against a field-by-field oracle.

``codec.message_to_dict`` reads a message's bytes with per-type plans; the
oracle below reads the parsed message attribute by attribute (as the codec
once did).  They must agree on every state
met in play in every game, on the fuzzer's mutated states, on the errors for
over-long fields, and on the encodings protobuf allows but our serializer
does not write (unpacked repeated numbers, fields out of order, unknown
fields); bytes that are not a message raise ``wire.Malformed``, never crash.
"""
import random

import pytest

from fagin.engines.registry import GAMES
from fagin.engines import new_game
from fagin.server import codec, wire
from fagin.v1 import fagin_pb2


def _oracle(msg, max_list=None):
    """The plain dict of a parsed message, read field by field."""
    out = {}
    for field in msg.DESCRIPTOR.fields:
        value = getattr(msg, field.name)
        names = None
        if field.enum_type is not None:
            prefix = len(wire.enum_prefix(field.enum_type))
            names = {v.number: (None if v.number == 0 else v.name[prefix:].lower())
                     for v in field.enum_type.values}

        def enum(n):
            return names[n] if n in names else f"unknown_{n}"
        repeated = field.is_repeated
        if max_list is not None and repeated and len(value) > max_list:
            raise AssertionError(f"{field.name}: {len(value)} items")
        if repeated and field.message_type is not None:
            out[field.name] = [_oracle(v, max_list) for v in value]
        elif repeated and names is not None:
            out[field.name] = [enum(v) for v in value]
        elif repeated:
            out[field.name] = list(value)
        elif field.message_type is not None:
            out[field.name] = _oracle(value, max_list) if msg.HasField(field.name) else None
        elif field.has_presence and not msg.HasField(field.name):
            out[field.name] = None
        else:
            out[field.name] = enum(value) if names is not None else value
    return out


def _played_states(game_id, players, seed, steps=400):
    state = new_game(game_id, players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        yield state
        if state.is_terminal():
            return
        state = state.clone()
        state.apply(state.sample_chance(rng.getrandbits(63)) if state.is_chance_node()
                    else rng.choice(state.legal_actions()))


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_states_met_in_play_read_as_the_oracle_reads_them(game_id):
    spec = GAMES[game_id]
    for players in sorted({spec.min_players, spec.max_players}):
        for i, state in enumerate(_played_states(game_id, players, seed=players)):
            if i % 7:
                continue
            descriptions = [state.describe()] + [state.view(p) for p in range(players)]
            for description in descriptions:
                inner = getattr(codec.encode_description(state.game, description), game_id)
                expected = _oracle(inner, spec.max_list)
                assert codec.message_to_dict(inner, spec.max_list, "s") == expected
                # Equal small sub-messages read as one dict: the same values.
                assert codec.message_to_dict(inner, spec.max_list, "s", share=True) == expected


def test_every_scalar_type_reads_as_protobuf_reads_it():
    settings = fagin_pb2.SearchSettings(exploration=0.1, gamma=1e-300, seed=2 ** 64 - 1, threads=-5,
                                        algorithm="ismcts_rm", sample_action=True, iterations=7)
    assert codec.message_to_dict(settings) == _oracle(settings)
    assert codec.message_to_dict(settings)["exploration"] == 0.1
    assert codec.message_to_dict(fagin_pb2.SearchSettings()) == _oracle(fagin_pb2.SearchSettings())


def test_encodings_our_serializer_does_not_write_are_read_too():
    """Repeated numbers unpacked, fields out of order, a field written twice (the last wins),
    unknown fields and groups, a known field with another wire type (protobuf keeps it as an
    unknown field): all parsed by protobuf, so all may reach the reader."""
    from tests.server.test_fuzz_states import fuzz
    _varint = fuzz._varint
    desc = fagin_pb2.GameState.DESCRIPTOR.fields_by_name["gangs_of_kyoto"].message_type
    received = desc.fields_by_name["received"].number
    players = desc.fields_by_name["players"].number
    data = (_varint(received << 3) + _varint(2) + _varint(received << 3) + _varint(1)
            + _varint(999 << 3) + _varint(12345)                          # unknown varint field
            + _varint(998 << 3 | 2) + _varint(3) + b"abc"                  # unknown bytes field
            + _varint(997 << 3 | 3) + _varint(5 << 3) + _varint(1)         # unknown group, nested
            + _varint(996 << 3 | 3) + _varint(996 << 3 | 4) + _varint(997 << 3 | 4)
            + _varint(players << 3 | 2) + _varint(1) + b"x"               # wrong wire type: unknown
            + _varint(players << 3) + _varint(3) + _varint(players << 3) + _varint(4))
    msg = type(getattr(fagin_pb2.GameState(), "gangs_of_kyoto")).FromString(data)
    got = wire.to_dict(data, wire.plan_for(desc))
    assert got == _oracle(msg) and got["received"] == [2, 1] and got["players"] == 4


@pytest.mark.parametrize("data", [b"\x08", b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
                                  b"\x0a\x05ab", b"\x0b", b"\x0d\x01\x02", b"\x42\x80",
                                  # deck cards: a second equal to the first but cut short
                                  b"\x42\x02\x08\x01\x42\x02\x08", b"\x42\x02\x08\x01\x42\x05\x08\x01"])
def test_bytes_that_are_not_a_message_raise_malformed(data):
    desc = fagin_pb2.GameState.DESCRIPTOR.fields_by_name["gangs_of_kyoto"].message_type
    with pytest.raises(wire.Malformed):
        wire.to_dict(data, wire.plan_for(desc))
    with pytest.raises(wire.Malformed):
        wire.to_dict(data, wire.plan_for(desc), share=True)


def test_over_long_fields_are_named_with_their_whole_length():
    london = fagin_pb2.GameState().london
    london.players = 2
    seat = london.seats.add()
    seat.hand.extend(["x"] * 300)
    with pytest.raises(codec.BadRequest, match=r"^state\.london\.seats\[0\]\.hand: 300 items, "):
        codec.message_to_dict(london, 110, "state.london")
    seat.hand[:] = ["a", "a" * 65]
    with pytest.raises(codec.BadRequest, match=r"^s\.seats\[0\]\.hand\[1\]: 65 characters, more than the "
                                               r"longest name accepted \(64\)"):
        codec.message_to_dict(london, 110, "s")
    kol = fagin_pb2.GameState().kids_of_london
    kol.seats.add().hand.extend(range(300))          # packed numbers
    with pytest.raises(codec.BadRequest, match=r"^k\.seats\[0\]\.hand: 300 items, "):
        codec.message_to_dict(kol, 100, "k")


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_mutated_states_read_as_the_oracle_reads_them(game_id):
    """The fuzzer's mutated states (odd enum numbers, negative counts, moved cards...)."""
    from tests.server.test_fuzz_states import fuzz
    seeds = fuzz.valid_states(game_id, seed=5)
    strings = sorted({v for s in seeds for v in fuzz._strings(fagin_pb2.GameState.FromString(s))})
    compared = 0
    for i in range(300):
        _, data = fuzz.make_input(game_id, seeds, strings, 5, i)
        try:
            msg = fagin_pb2.GameState.FromString(data)
        except Exception:
            continue
        if msg.WhichOneof("game") != game_id:
            continue
        inner = getattr(msg, game_id)
        assert codec.message_to_dict(inner) == _oracle(inner)
        assert codec.message_to_dict(inner, share=True) == _oracle(inner)
        compared += 1
    assert compared > 100


def test_a_decoder_that_only_reads_its_description_leaves_it_unchanged():
    # A game that declares reads_description_only gets equal cards as one shared dict from
    # the server's codec: its decoder must never change what it is given.
    import copy
    import random

    from fagin.engines.registry import GAMES, load_game, new_game
    from fagin.server import codec
    readers = [spec for spec in GAMES.values() if spec.reads_description_only]
    assert readers
    rng = random.Random(5)
    for spec in readers:
        game = load_game(spec.id)
        for players in range(spec.min_players, spec.max_players + 1):
            state = new_game(spec.id, players, seed=rng.getrandbits(32))
            for _ in range(rng.randrange(0, 40)):
                if state.is_terminal():
                    break
                state.apply(state.sample_chance(rng.getrandbits(63)) if state.is_chance_node()
                            else rng.choice(state.legal_actions()))
            for description in (state.describe(), state.view(0)):
                msg = getattr(codec.encode_description(game, description), spec.id)
                shared = codec.message_to_dict(msg, spec.max_list, "state", share=True)
                before = copy.deepcopy(shared)
                game.from_description(shared)
                assert shared == before, (spec.id, players)


def test_shared_reads_keep_message_types_apart():
    # Gangs of Kyoto's options {play_through: true} and a card {kind: KIND_EXPLORATION} are
    # both the bytes 08 01: shared by bytes alone, the card read as the options (a defect
    # the contract test caught).
    from fagin.server import codec
    from fagin.v1 import gangs_of_kyoto_pb2 as gk
    msg = gk.GangsOfKyotoState(options=gk.GangsOfKyotoState.Options(play_through=True),
                               deck=[gk.GangsOfKyotoCard(kind=gk.GangsOfKyotoCard.KIND_EXPLORATION)] * 3)
    assert msg.options.SerializeToString() == msg.deck[0].SerializeToString()
    d = codec.message_to_dict(msg, 255, "state", share=True)
    assert d["options"]["play_through"] is True and "kind" not in d["options"]
    assert [c["kind"] for c in d["deck"]] == ["exploration"] * 3
    assert d["deck"][0] is d["deck"][2]          # equal cards: one dict
    assert d == codec.message_to_dict(msg, 255, "state")


def test_a_shared_read_of_cards_in_runs_gives_each_run_one_dict():
    # A deck lists its cards by kind: an item with the bytes of the one before is that dict.
    from fagin.v1 import gangs_of_kyoto_pb2 as gk
    card = gk.GangsOfKyotoCard
    cards = [card(kind=card.KIND_EXPLORATION, value=3), card(kind=card.KIND_EXPLORATION, value=3),
             card(kind=card.KIND_BELL, bells=1), card(kind=card.KIND_EXPLORATION, value=3),
             card(kind=card.KIND_EXPLORATION, value=3, bells=1), card()]
    msg = gk.GangsOfKyotoState(deck=cards, discard=cards[:2])
    d = codec.message_to_dict(msg, 255, "state", share=True)
    assert d == _oracle(msg) == codec.message_to_dict(msg, 255, "state")
    deck = d["deck"]
    assert deck[0] is deck[1] is deck[3] is d["discard"][0] and deck[2] is not deck[0]
    assert deck[4] is not deck[0] and deck[4]["bells"] == 1 and deck[5]["kind"] is None
