"""Conversions between the API's messages and the engines' plain dicts.

Each engine describes its states and typed actions as plain dicts whose keys
are the field names of its ``.proto`` messages (see ``describe`` in an
engine module).  This module maps such dicts to messages and back by the
messages' descriptors, so a new game needs no code here:

* an enum value ``PREFIX_NAME`` (whose zero value is ``PREFIX_UNSPECIFIED``)
  is the string ``"name"``; the zero value is ``None``;
* an ``optional`` scalar that is not set, or a message field that is not
  set, is ``None``;
* repeated fields are lists, nested messages are dicts.
"""
from __future__ import annotations

import functools

from google.protobuf.descriptor import FieldDescriptor

from fagin.engines import load_game
from fagin.engines.registry import GAMES
from fagin.server import wire
from fagin.v1 import fagin_pb2


class BadRequest(ValueError):
    """A request field with a bad value; the message starts with the field's path."""


class Undecodable:
    """Stands in for a request whose bytes are not a valid message (see ``lenient``)."""

    def __init__(self, message_class, error):
        self.message_class = message_class
        self.error = error

    def bad_request(self, path="request"):
        return BadRequest(f"{path}: not a valid {self.message_class.DESCRIPTOR.full_name} "
                          f"message ({self.error})")


# Requests up to this size are parsed where gRPC hands them over (on the event
# loop): parsing a few KB costs microseconds, less than a hop to a thread.
# Larger ones stay bytes (:class:`Pending`) until the handler parses them off the loop.
INLINE_PARSE_BYTES = 16 * 1024


def parse(message_class, data):
    """``data`` parsed as a ``message_class``, or :class:`Undecodable`."""
    try:
        return message_class.FromString(data)
    except Exception as e:          # DecodeError, or RecursionError on hostile nesting
        return Undecodable(message_class, f"{type(e).__name__}: {e}")


class Refused(Undecodable):
    """Stands in for a request refused before it was parsed (see :func:`oversized`)."""

    def __init__(self, message_class, bad):
        super().__init__(message_class, str(bad))
        self.bad = bad

    def bad_request(self, path="request"):
        return self.bad


class Pending:
    """A large request's bytes, to be parsed off the event loop (``parse()``)."""

    __slots__ = ("message_class", "data")

    def __init__(self, message_class, data):
        self.message_class = message_class
        self.data = data

    def parse(self):
        """The message, :class:`Undecodable`, or :class:`Refused` when a state in it is
        larger than any game's could be (found without parsing it)."""
        bad = oversized(memoryview(self.data), self.message_class.DESCRIPTOR)
        if bad is not None:
            return Refused(self.message_class, bad)
        return parse(self.message_class, self.data)


# The largest GameState accepted on the wire, far above any state met in play (the tests
# check that played states stay far below it): a larger one is refused before it is
# parsed, since parsing holds the GIL and with it every other call (the figures:
# docs/architecture.md, "Client positions are untrusted").
MAX_STATE_BYTES = 64 * 1024
# Records read around the states of one large request (a request has a handful).
MAX_WIRE_RECORDS = 64
#: The most moves a game record may hold (server/records.py checks each game's own bound).
MAX_RECORD_MOVES = 20_000


class _Malformed(Exception):
    pass


def _varint(data, i):
    result = shift = 0
    while True:
        if i >= len(data) or shift > 63:
            raise _Malformed
        b = data[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7


_HOLDS_STATE = {}


def _holds_state(descriptor, seen=frozenset()):
    """Whether a message type is, or has a field leading to, a GameState."""
    known = _HOLDS_STATE.get(descriptor)
    if known is not None:
        return known
    if descriptor.full_name in seen:          # a cycle of message types
        return False
    seen = seen | {descriptor.full_name}
    result = descriptor is fagin_pb2.GameState.DESCRIPTOR or any(
        f.type == FieldDescriptor.TYPE_MESSAGE and _holds_state(f.message_type, seen)
        for f in descriptor.fields)
    _HOLDS_STATE[descriptor] = result
    return result


def oversized(data, descriptor, path=""):
    """A BadRequest naming the first GameState in serialized ``data`` (a ``descriptor``
    message) longer than MAX_STATE_BYTES, or the first message around it with more than
    MAX_WIRE_RECORDS records; None if there is none.  Reads only the records of the
    messages that lead to states, never a state's own: the cost does not grow with it.
    Malformed bytes give None (the parser says what is wrong)."""
    try:
        return _oversized(data, descriptor, path)
    except _Malformed:
        return None


def _oversized(data, descriptor, path):
    fields = descriptor.fields_by_number
    i = records = 0
    # A game record's moves are its own fields, bounded by the record's decoder.
    limit = MAX_WIRE_RECORDS + (MAX_RECORD_MOVES if descriptor is fagin_pb2.GameRecord.DESCRIPTOR else 0)
    while i < len(data):
        key, i = _varint(data, i)
        records += 1
        if records > limit:
            return BadRequest(f"{path or 'request'}: more than {limit} fields")
        wire = key & 7
        if wire == 0:
            _, i = _varint(data, i)
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        elif wire == 2:
            length, i = _varint(data, i)
            field = fields.get(key >> 3)
            if field is not None and field.type == FieldDescriptor.TYPE_MESSAGE and \
                    _holds_state(field.message_type):
                where = f"{path}.{field.name}" if path else field.name
                if field.message_type is fagin_pb2.GameState.DESCRIPTOR:
                    if length > MAX_STATE_BYTES:
                        return BadRequest(f"{where}: {length} bytes, more than a state of any game "
                                          f"can be ({MAX_STATE_BYTES})")
                else:
                    bad = _oversized(data[i:i + length], field.message_type, where)
                    if bad is not None:
                        return bad
            i += length
        else:
            raise _Malformed
    return None


def lenient(message_class):
    """A request deserializer that turns undecodable bytes into :class:`Undecodable`
    and leaves large requests unparsed (:class:`Pending`).

    gRPC's own deserializer failure would answer INTERNAL; garbage from a
    client is INVALID_ARGUMENT, and the handler says so.  gRPC calls the
    deserializer on the event loop, where a megabyte's parse would stall
    every other call.
    """
    def deserialize(data):
        if len(data) > INLINE_PARSE_BYTES:
            return Pending(message_class, data)
        return parse(message_class, data)
    return deserialize


def _enum_from_py(enum_desc, value, path):
    if value is None:
        return 0
    name = wire.enum_prefix(enum_desc) + str(value).upper()
    v = enum_desc.values_by_name.get(name)
    if v is None:
        raise BadRequest(f"{path}: unknown value {value!r}")
    return v.number


def _is_repeated(field):
    # protobuf >= 5 has `is_repeated`; older runtimes only `label`.
    rep = getattr(field, "is_repeated", None)
    if rep is not None:
        return rep
    return field.label == FieldDescriptor.LABEL_REPEATED


# Longest text accepted in any string field of a state or typed action (card,
# borough and option names are a few dozen characters): a longer one is refused
# before an engine looks it up or quotes it in an error.
MAX_STRING_CHARS = 64


def message_to_dict(msg, max_list=None, path="", share=False, data=None):
    """A message as a plain dict (every field present; unset optionals are None).

    With ``max_list``, a repeated field longer than that (or a string longer
    than ``MAX_STRING_CHARS``) is refused as a BadRequest naming its path under
    ``path``.  The message's bytes are read in one pass (:mod:`fagin.server.wire`).
    With ``share``, equal small sub-messages (cards) are one dict: for reading only.
    ``data``: the message's bytes, when already serialized.
    """
    plan = wire.plan_for(msg.DESCRIPTOR)
    if data is None:
        data = msg.SerializeToString()
    if max_list is None:
        return wire.to_dict(data, plan, share=share)
    try:
        return wire.to_dict(data, plan, max_list, MAX_STRING_CHARS, share)
    except wire.TooLong as e:
        where = ".".join(([path] if path else []) + e.path[::-1])
        raise BadRequest(f"{where}: {e.what}") from None


def dict_to_message(d, msg, path=""):
    """Fills ``msg`` from a dict produced by an engine (keys are field names)."""
    fields = msg.DESCRIPTOR.fields_by_name
    for key, value in d.items():
        field = fields.get(key)
        where = f"{path}.{key}" if path else key
        if field is None:
            raise TypeError(f"{where}: no such field in {msg.DESCRIPTOR.full_name}")
        if value is None:
            continue
        if _is_repeated(field):
            target = getattr(msg, key)
            for i, v in enumerate(value):
                if field.type == FieldDescriptor.TYPE_MESSAGE:
                    dict_to_message(v, target.add(), f"{where}[{i}]")
                elif field.type == FieldDescriptor.TYPE_ENUM:
                    target.append(_enum_from_py(field.enum_type, v, f"{where}[{i}]"))
                else:
                    target.append(v)
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            dict_to_message(value, getattr(msg, key), where)
            getattr(msg, key).SetInParent()
        elif field.type == FieldDescriptor.TYPE_ENUM:
            setattr(msg, key, _enum_from_py(field.enum_type, value, where))
        else:
            setattr(msg, key, value)
    return msg


def game_of(state_msg, path="state"):
    """The game id and the per-game message inside a GameState."""
    which = state_msg.WhichOneof("game")
    if which is None:
        raise BadRequest(f"{path}: no game state given (set one of: {', '.join(sorted(GAMES))})")
    if which not in GAMES:
        raise BadRequest(f"{path}: game {which!r} is not served by this server")
    return which, getattr(state_msg, which)


def _max_list(game_id):
    return GAMES[game_id].max_list


def state_bytes(state_msg):
    """The serialized game message inside a GameState (b"" when no game is set): what
    :func:`decode_state` reads, and its size."""
    which = state_msg.WhichOneof("game")
    return b"" if which is None else getattr(state_msg, which).SerializeToString()


def decode_state(state_msg, path="state", data=None):
    """A GameState message -> (Game, State), validated by the engine's decoder.

    ``data``: the game message's bytes when already serialized (:func:`state_bytes`)."""
    game_id, inner = game_of(state_msg, path)
    game = load_game(game_id)
    description = message_to_dict(inner, _max_list(game_id), f"{path}.{game_id}",
                                  share=GAMES[game_id].reads_description_only, data=data)
    try:
        return game, game.from_description(description)
    except ValueError as e:
        raise BadRequest(f"{path}.{game_id}.{e}") from None


def encode_description(game, description):
    """An engine dict (describe/view) -> GameState."""
    msg = fagin_pb2.GameState()
    dict_to_message(description, getattr(msg, game.id))
    getattr(msg, game.id).SetInParent()
    return msg


def encode_state(state):
    return encode_description(state.game, state.describe())


def _names_cards(game, chance):
    """Whether a decision's label and typed form depend on the state: a game whose identical
    cards are one action names the very card moved (London, LN-93: ``action_label_at``)."""
    return not chance and getattr(game.actions, "action_label_at", None) is not None


def _encoded_at(state, action_id, named=None):
    msg = fagin_pb2.Action(id=action_id, label=state.action_label(action_id, named))
    typed = getattr(msg, state.game.id)
    dict_to_message(state.typed_action(action_id, named), typed)
    typed.SetInParent()
    return msg


def encode_action(game, action_id, chance=False, options=None, state=None, typed=None):
    """An action id (a chance outcome's with ``chance``; ``options``: the state's, where
    the game's ids depend on them) -> Action (id, label, typed form). ``state``: the
    position the action is taken in, for a game whose labels name the card an action
    moves there (London); without it, the kind's name. ``typed``: the typed form the
    client gave, which may name one of identical cards.
    Returns a shared message: copy before changing it."""
    if state is not None and _names_cards(game, chance):
        return _encoded_at(state, action_id, typed)
    key = tuple(sorted(options.items())) if options else None
    return _encoded_action(game.id, action_id, bool(chance), key)


def action_encoder(game, chance=False, options=None, state=None):
    """A function: action id -> the serialized :func:`encode_action` (cached), for many
    actions of one state (an answer is written from these; ``state`` as there)."""
    if state is not None and _names_cards(game, chance):
        return lambda action_id: _encoded_at(state, action_id).SerializeToString()
    key = tuple(sorted(options.items())) if options else None
    return functools.partial(_encoded_action_bytes, game.id, bool(chance), key)


@functools.lru_cache(maxsize=4096)
def _encoded_action_bytes(game_id, chance, options_key, action_id):
    return _encoded_action(game_id, action_id, chance, options_key).SerializeToString()


@functools.lru_cache(maxsize=4096)
def _encoded_action(game_id, action_id, chance, options_key):
    game = load_game(game_id)
    options = dict(options_key) if options_key else None
    msg = fagin_pb2.Action(id=action_id, label=game.action_label(action_id, chance, options))
    typed = getattr(msg, game_id)
    dict_to_message(game.typed_action(action_id, chance, options), typed)
    typed.SetInParent()
    return msg


def encode_event(game, ev):
    """An event dict (as :meth:`State.events` gives it: ``label``, ``seat``, ``summary``,
    ``summed_up``, ``typed``) -> Event, its typed form in the game's ``<Game>Event`` message."""
    msg = fagin_pb2.Event(label=ev["label"], summary=bool(ev.get("summary")), summed_up=bool(ev.get("summed_up")))
    if ev.get("seat") is not None:
        msg.seat = ev["seat"]
    if ev.get("typed") is not None:
        dict_to_message(ev["typed"], getattr(msg, game.id), f"{game.id}")
        getattr(msg, game.id).SetInParent()
    return msg


def encode_seat_events(game, by_seat):
    """``{seat: [event dicts]}`` -> [SeatEvents], seats in order."""
    return [fagin_pb2.SeatEvents(seat=s, events=[encode_event(game, e) for e in by_seat[s]])
            for s in sorted(by_seat)]


def decode_typed(game, action_msg, path):
    """An Action given in typed form -> the typed form as a dict (it must match the state's
    game); :func:`decode_action` reads its id."""
    which = action_msg.WhichOneof("typed")
    if which is None:
        raise BadRequest(f"{path}.typed: give the action's typed form (or use action_id)")
    if which != game.id:
        raise BadRequest(f"{path}.typed: a {which} action does not apply to a {game.id} state")
    return message_to_dict(getattr(action_msg, which), _max_list(which), f"{path}.{which}")


def decode_action(game, action_msg, path, chance=False, options=None):
    """An Action given in typed form -> its id (the typed form must match the state's game,
    and be a chance outcome exactly when ``chance``: the state is at a chance event)."""
    typed = decode_typed(game, action_msg, path)
    which = game.id
    try:
        return game.action_from_typed(typed, chance, options or None)
    except ValueError as e:
        raise BadRequest(f"{path}.{which}.{e}") from None


def final_scores_message(state):
    """FinalScores for a finished game, as its room explains it (GameSpec.final_scores)."""
    scores = state.game.spec.final_scores(state)
    msg = fagin_pb2.FinalScores(unit=scores.unit, winners=scores.winners, explanation=scores.explanation,
                                tie_break=scores.tie_break, parts_add_up=scores.parts_add_up)
    for s in scores.seats:
        msg.seats.add(seat=s.seat, name=s.name, total=s.total, note=s.note,
                      parts=[fagin_pb2.ScorePart(name=p.name, points=p.points, detail=p.detail)
                             for p in s.parts])
    return msg


def status_of(state):
    """StateStatus for a state."""
    st = fagin_pb2.StateStatus()
    if state.is_terminal():
        st.terminal = True
        st.returns.extend(state.returns())
        st.final_scores.CopyFrom(final_scores_message(state))
    elif state.is_chance_node():
        st.chance = True
    else:
        st.current_seat = state.current_player()
        st.pending_seats.extend(state.pending_seats())
    return st
