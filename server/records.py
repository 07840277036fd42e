"""Game records on the wire: a ``GameRecord`` to the position it reaches, replayed and checked
move by move (``fagin.engines.records``), and back; the calls that take a state take a record
through :func:`decode_position`, and ``ViewRecord`` is here.

Every fault is a BadRequest naming the field from the request's root
(``record.moves[17].action_id: not legal: ...; legal here: ...``).
"""
from __future__ import annotations

from dataclasses import dataclass

from fagin.engines import records
from fagin.engines.registry import GAMES, load_game
from fagin.server import codec
from fagin.server.codec import BadRequest
from fagin.server.logs import quoted
from fagin.v1 import fagin_pb2

#: The most moves a record may hold, whatever the game (a game's own bound, its engine's
#: longest game, is usually lower): the server replays each.
MAX_RECORD_MOVES = codec.MAX_RECORD_MOVES

#: The longest game option value accepted, in NewGame or a record (the longest any game takes
#: is a few words).
MAX_OPTION_VALUE_CHARS = 64


@dataclass
class Replayed:
    """A decoded record: its game, start position (before the moves), moves and viewer, and the
    position the moves reach (for a seat's view, one the viewer cannot tell from the real one)."""
    game: object
    start: object
    start_msg: object          # the record's `start` as sent (a GameState), or None
    options: dict              # the options as the record gave them (text)
    moves: list
    viewer: int | None
    state: object

    def message(self, moves=None):
        """The record as a GameRecord message (``moves``: in place of its own)."""
        return encode_record(self.game, self.start.num_players, self.options, self.start_msg,
                             self.moves if moves is None else moves, self.viewer)


def _start(msg, path):
    """The record's game and start position (the start's own, or a new game's)."""
    if msg.HasField("start"):
        game, state = codec.decode_state(msg.start, f"{path}.start")
        if msg.game and msg.game != game.id:
            raise BadRequest(f"{path}.game: {quoted(msg.game)}, but the start position is a {game.id} game")
        if msg.players and msg.players != state.num_players:
            raise BadRequest(f"{path}.players: {msg.players}, but the start position has {state.num_players} players")
        if msg.options:
            check_options(game.spec, msg.options, path)
            try:
                given = game.spec.parse_options(dict(msg.options))
            except ValueError as e:
                raise BadRequest(f"{path}.options.{e}") from None
            made = {**game.spec.parse_options({}), **state.options()}
            for name, value in given.items():
                if name in msg.options and made.get(name) != value:
                    raise BadRequest(f"{path}.options.{name}: {quoted(msg.options[name])}, but the start "
                                     f"position was made with {made.get(name)!r}")
        return game, state
    if not msg.game:
        raise BadRequest(f"{path}.game: give the game (or a start position)")
    spec = GAMES.get(msg.game)
    if spec is None:
        raise BadRequest(f"{path}.game: unknown game {quoted(msg.game)}; served: {', '.join(sorted(GAMES))}")
    check_options(spec, msg.options, path)
    game = load_game(spec.id)
    try:
        return game, game.new_initial_state(msg.players, **dict(msg.options))
    except ValueError as e:      # names players or options.<name>
        raise BadRequest(f"{path}.{e}") from None


def check_options(spec, options, path=""):
    """Refuses an option the game does not have, or a value too long to be one, before the
    engine reads them (BadRequest naming the field under ``path``, the client's strings quoted):
    NewGame's options and a record's."""
    p = f"{path}." if path else ""
    known = [o.name for o in spec.options]
    for name, value in options.items():
        if name not in known:
            raise BadRequest(f"{p}options: unknown option {quoted(name)} for {spec.id}"
                             + (f"; known: {', '.join(known)}" if known else " (it has none)"))
        if len(value) > MAX_OPTION_VALUE_CHARS:
            raise BadRequest(f"{p}options.{name}: at most {MAX_OPTION_VALUE_CHARS} characters, got {len(value)}")


def _moves(msg, game, viewer, path):
    limit = min(MAX_RECORD_MOVES, game.max_game_length)
    if len(msg.moves) > limit:
        raise BadRequest(f"{path}.moves: at most {limit} moves in a {game.id} record, got {len(msg.moves)}")
    out = []
    for i, m in enumerate(msg.moves):
        where = f"{path}.moves[{i}]"
        seat = m.seat if m.HasField("seat") else None
        if seat is not None and seat < 0:
            raise BadRequest(f"{where}.seat: must be a seat (0 or more), got {seat}; leave it unset for a "
                             f"chance outcome")
        which = m.WhichOneof("move")
        check = m.check if m.HasField("check") else None
        if check is not None and viewer is None:
            raise BadRequest(f"{where}.check: only a seat's view (record.viewer set) carries checks")
        if which is None:
            raise BadRequest(f"{where}: give the move (action_id, action, or unseen in a seat's view)")
        if which == "unseen":
            if viewer is None:
                raise BadRequest(f"{where}.unseen: a complete record (no viewer) gives every move")
            if not m.unseen:
                raise BadRequest(f"{where}.unseen: must be true when set")
            out.append(records.Move(seat, unseen=True, check=check))
        elif which == "action_id":
            out.append(records.Move(seat, m.action_id, check=check))
        else:
            out.append(records.Move(seat, None, codec.decode_typed(game, m.action, f"{where}.action"), check=check))
    return out


def decode_record(msg, path="record"):
    """A GameRecord message -> :class:`Replayed`, every move checked (BadRequest naming the
    first at fault)."""
    game, start = _start(msg, path)
    viewer = None
    if msg.HasField("viewer"):
        viewer = msg.viewer
        if not 0 <= viewer < start.num_players:
            raise BadRequest(f"{path}.viewer: {viewer} is not a seat of this {start.num_players}-player game")
    moves = _moves(msg, game, viewer, path)
    try:
        if viewer is None:
            state = records.replay(start.clone(), moves)
        else:
            state = records.replay_view(start, moves, viewer)
    except records.RecordError as e:
        raise BadRequest(f"{path}.{e}") from None
    return Replayed(game, start, msg.start if msg.HasField("start") else None, dict(msg.options), moves, viewer, state)


def decode_position(request, path="", state_bytes=None, seat=None, seat_field="seat"):
    """The position of a request that takes a ``state`` or a ``record``: (game, state, Replayed
    or None). With a seat's view of a record, ``seat`` (the seat the call is for, if any) must
    be its viewer: the view tells nothing of another seat's hidden part."""
    p = (path + ".") if path else ""
    if not request.HasField("record"):
        game, state = codec.decode_state(request.state, p + "state", state_bytes)
        return game, state, None
    if request.HasField("state"):
        raise BadRequest(f"{p}record: give state or record, not both")
    replayed = decode_record(request.record, p + "record")
    if replayed.viewer is not None and seat is not None and seat != replayed.viewer:
        raise BadRequest(f"{p}{seat_field}: seat {seat}, but the record is seat {replayed.viewer}'s view "
                         f"(it tells only what seat {replayed.viewer} saw)")
    return replayed.game, replayed.state, replayed


def encode_record(game, players, options, start_msg, moves, viewer):
    """A GameRecord message of ``moves`` (:class:`fagin.engines.records.Move`)."""
    msg = fagin_pb2.GameRecord(game=game.id, players=players, options=options)
    if start_msg is not None:
        msg.start.CopyFrom(start_msg)
    if viewer is not None:
        msg.viewer = viewer
    for m in moves:
        out = msg.moves.add()
        if m.seat is not None:
            out.seat = m.seat
        if m.unseen:
            out.unseen = True
        elif m.typed is not None:
            codec.dict_to_message(m.typed, getattr(out.action, game.id))
            getattr(out.action, game.id).SetInParent()
        else:
            out.action_id = m.action
        if m.check is not None:
            out.check = m.check
    return msg


def extend(replayed, before_states_and_moves):
    """The record extended by moves applied after it: ``[(state before, Move)]``; a seat's view
    tells them as its viewer saw them (:func:`fagin.engines.records.seat_view`), with checks."""
    added = [move for _, move in before_states_and_moves]
    if replayed.viewer is not None and added:
        added = records.seat_view(before_states_and_moves[0][0], added, replayed.viewer)
    return replayed.message(replayed.moves + added)


def view_record(replayed, seat):
    """``seat``'s view of a complete record, as a GameRecord message."""
    moves = records.seat_view(replayed.start, replayed.moves, seat)
    # A set-up start is the seat's view of it: the rest is not the seat's to know.
    start = None if replayed.start_msg is None else \
        codec.encode_description(replayed.game, replayed.start.view(seat))
    return encode_record(replayed.game, replayed.start.num_players, replayed.options, start, moves, seat)
