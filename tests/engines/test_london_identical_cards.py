"""Identical cards (LN-93): one action for the search, but the very card a person played.

Salters, Vintners, Haberdashers and Grocers (and the other groups LN-93 lists) differ only
by name, so the engine offers one action for all the copies a seat could move, and moves the
lowest-numbered one. A frontend mirroring a real table must be able to say "Vintners", and
people must see the card that moves, not "Salters or Vintners or ...": a decision's label and
typed form in a state name the card it moves there, and a typed action naming a copy moves
that copy (found from outside: a person who played Salters saw Vintners on their display).
"""
from __future__ import annotations

import grpc
import pytest

from fagin.engines.core import IllegalActionError
from fagin.engines.london import actions as A
from fagin.server import codec
from fagin.v1 import fagin_pb2 as pb
from tests.engines.london_helpers import GAME, E, act, hand_of, phase, position, raw, turn_start

SALTERS_GROUP = ("salters", "vintners", "haberdashers", "grocers")


def _kind_actions(st, range_name):
    return [a for a in st.legal_actions() if (E.split_action(a) or ("",))[0] == range_name]


def _play_position():
    """Seat 0 in Play Cards holding Vintners and Grocers (one kind) and a second brown card."""
    return position(phase="play", action="play_cards", hands={0: ["vintners", "grocers", "fishmongers"]})


def test_one_action_for_identical_cards_its_label_names_the_card_moved_LN_93():
    st = _play_position()
    place = _kind_actions(st, "place")
    kinds = {E.split_action(a)[1] for a in place}
    assert E.KIND_OF[E.VERSION_INDEX["vintners"]] == E.KIND_OF[E.VERSION_INDEX["grocers"]]
    assert len(place) == len(kinds) == 2, "Vintners and Grocers are one action (LN-93)"
    labels = {st.action_label(a) for a in place}
    assert not any(" or " in label for label in labels), labels
    # Versions are numbered in cards.json's order: of these two, Vintners is the lowest held.
    assert "place Vintners" in labels
    vintners = next(a for a in place if st.action_label(a) == "place Vintners")
    assert st.typed_action(vintners) == {"kind": "place", "card": "vintners"}
    # Without a state (an id alone), the label still names the kind.
    assert " or " in GAME.action_label(vintners)


def test_a_typed_action_naming_a_copy_moves_that_copy_LN_93():
    st = _play_position()
    named = st.clone()
    action = named.apply_typed({"kind": "place", "card": "grocers"})
    assert action in _kind_actions(st, "place")
    assert raw(named)["pending"] == E.VERSION_INDEX["grocers"], "Grocers is the card being placed"
    assert hand_of(named, 0)["vintners"] == 1 and hand_of(named, 0)["grocers"] == 0
    plain = st.clone()
    plain.apply(action)                             # the id alone moves the lowest copy
    assert raw(plain)["pending"] == E.VERSION_INDEX["vintners"]
    # The choice is not kept: the next decision moves the lowest again.
    assert raw(named)["named"] == 0


def test_naming_a_copy_that_is_not_there_is_refused_by_field():
    st = _play_position()
    with pytest.raises(ValueError) as info:
        st.clone().apply_typed({"kind": "place", "card": "salters"})
    assert str(info.value).startswith("card: Salters"), str(info.value)
    with pytest.raises(IllegalActionError):
        st.clone().apply_typed({"kind": "place", "card": "st_pauls"})     # no such kind in hand


def test_the_card_display_keeps_each_cards_identity_LN_93():
    """Taking from a row: the label names the card taken; naming another copy of the kind
    in the row takes that one, and the other stays in the row."""
    st = turn_start(display_top=["grocers", "vintners"])
    take = _kind_actions(st, "take_top")
    assert [st.action_label(a) for a in take] == ["take Vintners from the top row"]
    st.apply_typed({"kind": "take_top", "card": "grocers"})
    assert hand_of(st, 0)["grocers"] == 1
    assert [E.VERSIONS[v] for v in raw(st)["display"][0][:raw(st)["display_n"][0]]] == ["vintners"]


def test_a_named_card_in_play_is_the_one_marked_LN_93_LN_94():
    """Two stacks topped by identical cards (no Shops money to tell them apart): activating
    the one named marks that stack."""
    st = position(phase="run", action="run_city", hands={0: ["st_pauls"]},
                  stacks={0: [["salters"], ["grocers"]]}, activations=0)
    activate = _kind_actions(st, "activate")
    labels = [st.action_label(a) for a in activate]
    assert labels == ["activate Salters"], labels
    st.apply_typed({"kind": "activate", "card": "grocers"})
    flags = raw(st)["pc_flags"][0]
    versions = raw(st)["pc_version"][0]
    marked = [E.VERSIONS[versions[i]] for i in range(raw(st)["pc_n"][0]) if flags[i] & E.FLAGS["activated"]]
    assert marked == ["grocers"]


def _typed_message(**fields):
    action = pb.Action()
    for name, value in fields.items():
        setattr(action.london, name, value)
    action.london.SetInParent()
    return action


def test_served_labels_and_applied_actions_name_the_card_LN_93(client):
    """Through the API: LegalActions names one card per button, and ApplyAction with a typed
    action naming Grocers moves Grocers and reports "place Grocers"."""
    st = _play_position()
    state_msg = codec.encode_state(st)
    legal = client.legal_actions(state_msg)
    assert not any(" or " in a.label for a in legal.actions), [a.label for a in legal.actions]
    assert any(a.label == "place Vintners" and a.london.card == "vintners" for a in legal.actions)
    kind = pb.Action().london.DESCRIPTOR.fields_by_name["kind"].enum_type.values_by_name["KIND_PLACE"].number
    reply = client.apply(state_msg, _typed_message(kind=kind, card="grocers"))
    assert [a.label for a in reply.applied] == ["place Grocers"]
    assert reply.applied[0].london.card == "grocers"
    after = GAME.from_description(codec.message_to_dict(reply.state.london))
    assert hand_of(after, 0)["vintners"] == 1 and hand_of(after, 0)["grocers"] == 0
    with pytest.raises(grpc.RpcError) as e:
        client.apply(state_msg, _typed_message(kind=kind, card="salters"))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert e.value.details().startswith("action.london.card: Salters"), e.value.details()
