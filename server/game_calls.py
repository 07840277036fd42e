"""The stateless calls of the ``fagin.v1.Fagin`` service, ListGames through ViewState:
each decodes what a client sent, asks the game's engine, and answers at once.  They run in
the decoding threads (``rpc.unary_call``), off the event loop.
"""
from __future__ import annotations

from fagin.engines import IllegalActionError
from fagin.engines.registry import GAMES, load_game
from fagin.engines.records import Move
from fagin.server import codec, records
from fagin.server.codec import BadRequest
from fagin.server.logs import quoted
from fagin.server.request import ALGORITHMS
from fagin.server.rpc import unary_call
from fagin.v1 import fagin_pb2


def _make_seat_current(state, request, path="seat"):
    """Makes request.seat, if given, the seat to act in `state` (it must have a decision
    pending: in a simultaneous move that seat's choice is the one the state then asks
    for), and returns it; else the current seat.  BadRequest names the field."""
    if request.HasField("seat"):
        seat = request.seat
        if not 0 <= seat < state.num_players:
            raise BadRequest(f"{path}: {seat} is not a seat of this {state.num_players}-player game")
        if state.is_terminal() or state.is_chance_node() or not state.make_current(seat):
            raise BadRequest(f"{path}: seat {seat} has no decision pending")
        return seat
    return state.current_player()


def _view_response(game, state, seat):
    """The ViewStateResponse of `state` as `seat` sees it: what ViewState answers, and
    what ApplyAction adds for its observer (one implementation, so the two cannot differ)."""
    view = state.view(seat)
    # Who may decide is read from the view (a seat does not see others' secret pending
    # choices); the result of a finished game is public and comes from the real state,
    # not from the stand-ins for hidden cards.
    seen = state if state.is_terminal() else game.from_description(view)
    return fagin_pb2.ViewStateResponse(state=codec.encode_description(game, view),
                                       status=codec.status_of(seen), text=state.render(seat))


def _legal_actions_response(game, state, status):
    """The LegalActionsResponse of a decision: the legal actions of the seat to act in
    `state`, with `status`, the position's (taken before that seat was made the one to act).
    What LegalActions answers, and what ApplyAction adds for its observer."""
    options = state.options()
    return fagin_pb2.LegalActionsResponse(status=status, actions=[
        codec.encode_action(game, action, False, options, state=state) for action in state.legal_actions()])


def _viewers_turn(state, viewer, request):
    """LegalActions on a seat's view of a record: only the viewer's own decisions are known
    (another seat's hand, a deck's order, are a fill there)."""
    if state.is_terminal():
        return
    if state.is_chance_node():
        raise BadRequest(f"record: a chance event is next, and the record is seat {viewer}'s view: "
                         f"the outcomes depend on what seat {viewer} cannot see")
    if not request.HasField("seat") and viewer not in state.pending_seats():
        raise BadRequest(f"seat: the record is seat {viewer}'s view and seat {viewer} has no decision "
                         f"pending (pending: seats {state.pending_seats()})")
    if not request.HasField("seat"):
        state.make_current(viewer)


class GameCalls:
    """ListGames, NewGame, LegalActions, ApplyAction and ViewState, for the service to inherit."""

    @unary_call
    async def ListGames(self, request, context, info):
        resp = fagin_pb2.ListGamesResponse()
        for game_id, gi in GAMES.items():
            resp.games.add(id=game_id, name=gi.name, min_players=gi.min_players,
                           max_players=gi.max_players, algorithms=ALGORITHMS, spec=gi.spec,
                           options=[fagin_pb2.GameOption(name=o.name, default_value=str(o.default).lower()
                                                         if isinstance(o.default, bool) else str(o.default),
                                                         description=o.description)
                                    for o in gi.options])
        return resp

    @unary_call
    def NewGame(self, request, context, info):
        gi = GAMES.get(request.game)
        if gi is None:
            info["game"] = quoted(request.game)
            raise BadRequest(f"game: unknown game {quoted(request.game)}; served: {', '.join(sorted(GAMES))}")
        info["game"] = gi.id
        options = dict(request.options)
        records.check_options(gi, options)
        try:
            state = load_game(gi.id).new_initial_state(request.players, **options)
        except ValueError as e:         # the message names the field: players or options.<name>
            raise BadRequest(str(e)) from None
        drawn = []
        told = state.resolve_chance_with_events(request.seed, drawn=drawn)
        game = load_game(gi.id)
        record = records.encode_record(game, request.players, options, None, [Move(None, a) for a in drawn], None)
        return fagin_pb2.NewGameResponse(state=codec.encode_state(state), status=codec.status_of(state),
                                         events=codec.encode_seat_events(game, told), record=record)

    @unary_call
    def LegalActions(self, request, context, info):
        game, state, replayed = records.decode_position(request, seat=request.seat if request.HasField("seat") else None)
        info["game"] = game.id
        if replayed is not None and replayed.viewer is not None:
            _viewers_turn(state, replayed.viewer, request)
        resp = fagin_pb2.LegalActionsResponse(status=codec.status_of(state))
        if state.is_terminal():
            if request.HasField("seat"):
                raise BadRequest("seat: the game is over; no seat has a decision pending")
            return resp
        if state.is_chance_node():
            if request.HasField("seat"):
                raise BadRequest("seat: a chance event is next; no seat has a decision pending")
            options = state.options()
            for action, p in state.chance_outcomes():
                resp.actions.append(codec.encode_action(game, action, True, options))
                resp.probabilities.append(p)
            return resp
        _make_seat_current(state, request)
        return _legal_actions_response(game, state, resp.status)

    @unary_call
    def ApplyAction(self, request, context, info):
        game, state, replayed = records.decode_position(
            request, seat=request.observer if request.HasField("observer") else None, seat_field="observer")
        info["game"] = game.id
        viewer = None if replayed is None else replayed.viewer
        if state.is_terminal():
            raise BadRequest("state: the game is over; no action can be applied")
        if request.HasField("observer") and not 0 <= request.observer < state.num_players:
            raise BadRequest(f"observer: {request.observer} is not a seat of this "
                             f"{state.num_players}-player game")
        # A seat's view of a record tells only its viewer's events: the rest of its position is a fill.
        observers = [request.observer] if request.HasField("observer") else \
            [viewer] if viewer is not None else range(state.num_players)
        events = {s: [] for s in observers}

        def record(before, action):
            # What each observer saw of this step (the room's events, engines/<game>/events.py).
            for s in observers:
                events[s].extend(before.events(action, state, s))

        applied = []
        moved = []                          # (the state before, the move) for the record
        options = state.options()          # the game's options: they fix what an id means
        which = request.WhichOneof("choice")
        if which is None and not state.is_chance_node():
            raise BadRequest("action_id: give the action (action_id or action)")
        if state.is_chance_node() and request.HasField("seat"):
            raise BadRequest("seat: a chance event is next; no seat has a decision pending")
        if not state.is_chance_node():
            _make_seat_current(state, request)
        if which is not None:
            at_chance = state.is_chance_node()
            before = state.clone()          # the applied action is reported as taken there
            typed = None
            try:
                if which == "action_id":
                    action = request.action_id
                    state.apply(action)
                else:
                    # A typed form may name the very card among identical ones (LN-93).
                    typed = codec.decode_typed(game, request.action, "action")
                    try:
                        action = state.apply_typed(typed)
                    except IllegalActionError:
                        raise
                    except ValueError as e:
                        raise BadRequest(f"action.{game.id}.{e}") from None
            except IllegalActionError as e:
                raise BadRequest(f"{which}: {e}") from None
            applied.append(codec.encode_action(game, action, at_chance, options, state=before, typed=typed))
            moved.append((before, Move(None if at_chance else before.current_player(), action, typed)))
            record(before, action)
        if not request.stop_at_chance:
            # Chance events are drawn one by one so that each can be reported.
            seed = request.seed
            while state.is_chance_node():
                outcome = state.sample_chance(seed)
                before = state.clone()
                state.apply(outcome)
                applied.append(codec.encode_action(game, outcome, True, options))
                moved.append((before, Move(None, outcome)))
                record(before, outcome)
                seed = (seed * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        status = codec.status_of(state)
        # The observer's view, and its moves if it is to decide, come with the move: a
        # frontend shows them at once, instead of sending the whole new state back in a
        # ViewState and a LegalActions call.
        view = legal = None
        if request.HasField("observer"):
            view = _view_response(game, state, request.observer)
            if request.observer in status.pending_seats:
                legal = _legal_actions_response(game, state.with_seat_to_act(request.observer), status)
        record_msg = None if replayed is None else records.extend(replayed, moved)
        if viewer is not None:
            # The fill's chance outcomes and the others' secret choices are not the viewer's to
            # be told: its view of the record says which it saw.
            applied = [a for a, m in zip(applied, record_msg.moves[len(replayed.moves):]) if not m.unseen]
        # A seat's view of a record answers its viewer's view of the new position, not the fill.
        state_msg = codec.encode_state(state) if viewer is None else \
            codec.encode_description(game, state.view(viewer))
        return fagin_pb2.ApplyActionResponse(
            state=state_msg, status=status, applied=applied,
            events=codec.encode_seat_events(game, events), view=view, legal_actions=legal, record=record_msg)

    @unary_call
    def ViewState(self, request, context, info):
        game, state, _ = records.decode_position(request, seat=request.seat)
        info["game"] = game.id
        if not 0 <= request.seat < state.num_players:
            raise BadRequest(f"seat: {request.seat} is not a seat of this {state.num_players}-player game")
        return _view_response(game, state, request.seat)

    @unary_call
    def ViewRecord(self, request, context, info):
        replayed = records.decode_record(request.record, "record")
        info["game"] = replayed.game.id
        if replayed.viewer is not None:
            raise BadRequest("record.viewer: give a complete record (no viewer); it is already "
                             f"seat {replayed.viewer}'s view")
        if not 0 <= request.seat < replayed.state.num_players:
            raise BadRequest(f"seat: {request.seat} is not a seat of this {replayed.state.num_players}-player game")
        return fagin_pb2.ViewRecordResponse(record=records.view_record(replayed, request.seat),
                                            view=_view_response(replayed.game, replayed.state, request.seat))
