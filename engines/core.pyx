# cython: language_level=3
"""Python-facing wrappers over the engine ABI: :class:`Game` and :class:`State`.

These are thin: every rule lives in the engine's ``GameDef`` functions; this
module only checks arguments coming from Python (legality, seat ranges) and
converts results to Python objects.  It is not on the search hot path.
"""
import importlib

from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
cimport cython
import array as pyarray
from libc.stdint cimport uint64_t
from libc.math cimport llround
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memcmp

from fagin.engines.abi cimport GameDef, GAMEDEF_CAPSULE, PLAYER_CHANCE, PLAYER_TERMINAL, MAX_SEATS
from fagin.engines.rng cimport Rng, mix64, rng_seed

# Largest number of legal actions (or chance outcomes) an engine may declare.
cdef enum:
    MAX_WRAPPER_ACTIONS = 4096

CHANCE = PLAYER_CHANCE
TERMINAL = PLAYER_TERMINAL


class IllegalActionError(ValueError):
    """An action that is not legal in the state it was applied to."""


cdef class Game:
    """One game's rules, as loaded from its engine module.

    Obtain games from :func:`fagin.engines.registry.load_game`; a ``Game``
    makes states (:meth:`new_initial_state`) and knows the game's static facts.
    """
    cdef const GameDef* gd
    cdef readonly object capsule
    cdef readonly object engine
    cdef readonly object actions
    cdef readonly object spec
    cdef object _check_shape      # the state message's static shape (fagin.engines.shape)

    def __init__(self, engine, spec, actions=None):
        """``engine``: the game's engine module (see :class:`fagin.engines.game.Engine`);
        ``spec``: its :class:`~fagin.engines.game.GameSpec`; ``actions``: its room's actions
        module (:class:`fagin.engines.game.Actions`), by default the ``actions`` module beside
        the engine.  The actions module reads the engine's constants; the engine does not
        import it, so that neither module needs the other to be imported first."""
        capsule = engine.GAME_DEF
        if not PyCapsule_IsValid(capsule, GAMEDEF_CAPSULE):
            raise TypeError("capsule does not carry a fagin.GameDef")
        self.gd = <const GameDef*>PyCapsule_GetPointer(capsule, GAMEDEF_CAPSULE)
        if self.gd.max_players > MAX_SEATS:
            raise TypeError(f"{spec.id}: the engine declares {self.gd.max_players} seats; "
                            f"the ABI holds at most {MAX_SEATS}")
        if spec.max_players > self.gd.max_players:
            raise TypeError(f"{spec.id}: GameSpec allows {spec.max_players} players; the engine's "
                            f"state holds {self.gd.max_players}")
        if self.gd.max_legal_actions > MAX_WRAPPER_ACTIONS or self.gd.max_decision_actions > self.gd.max_legal_actions:
            raise TypeError(f"{spec.id}: the engine declares more legal actions than the wrapper handles")
        self.capsule = capsule
        self.engine = engine
        self.actions = actions if actions is not None else importlib.import_module(
            engine.__name__.rpartition(".")[0] + ".actions")
        self.spec = spec

    @property
    def id(self):
        return self.gd.game_id.decode()

    def action_label(self, int action, bint chance=False, options=None):
        """A short label for people of an action id (``"play 3"``), or of a chance
        outcome's id with ``chance`` (some games, like OpenSpiel's, reuse ids).
        ``options``: the state's options (:meth:`State.options`) where an id's meaning
        depends on them (Liar's Dice); None for the defaults."""
        return self.actions.action_label(action, chance, options)

    def typed_action(self, int action, bint chance=False, options=None):
        """The typed form (a dict shaped like the game's action message) of an action
        id, or of a chance outcome's id with ``chance`` (``options`` as above)."""
        return self.actions.typed_action(action, chance, options)

    def action_from_typed(self, d, bint chance=False, options=None):
        """The action id of a typed form (a dict); ``chance``: the form must be a chance
        outcome (the position is at a chance event), else a decision (``options`` as
        above). ValueError naming the field if none fits."""
        return self.actions.action_from_typed(d, chance, options)

    @property
    def max_players(self):
        """The most seats the engine's state holds (``GameDef.max_players``)."""
        return self.gd.max_players

    @property
    def has_rollout_policy(self):
        """Whether the engine offers a rollout policy (``GameDef.rollout_action``)."""
        return self.gd.rollout_action != NULL

    @property
    def has_scores(self):
        """Whether the engine reports each seat's score (``GameDef.scores``)."""
        return self.gd.scores != NULL

    @property
    def has_view_key(self):
        """Whether the engine keys a seat's view apart from its information set
        (``GameDef.view_key``: London, whose keys merge identical cards, LN-93)."""
        return self.gd.view_key != NULL

    @property
    def has_beliefs(self):
        """Whether the engine counts what a seat cannot see (``GameDef.hidden_counts``)."""
        return self.gd.hidden_counts != NULL and self.gd.belief_places > 0 and self.gd.belief_items > 0

    @property
    def belief_shape(self):
        """(places, items) of the engine's hidden counts (``GameDef.hidden_counts``)."""
        return (self.gd.belief_places, self.gd.belief_items)

    @property
    def num_distinct_actions(self):
        return self.gd.num_distinct_actions

    @property
    def max_legal_actions(self):
        return self.gd.max_legal_actions

    @property
    def max_decision_actions(self):
        return self.gd.max_decision_actions

    @property
    def max_game_length(self):
        return self.gd.max_game_length

    @property
    def state_size(self):
        return self.gd.state_size

    def new_initial_state(self, players, **options):
        """The state before the first chance event, for ``players`` seats.

        ``options`` are the game's options by name (``GameSpec.options``), as
        values or as strings; unknown names and bad values raise ValueError.
        """
        self.spec.check_players(players)
        return self._trusted(self.engine.initial_state_bytes(players, **self.spec.parse_options(options)))

    def from_description(self, d):
        """A state from its description (a dict shaped like the game's state message,
        as :meth:`State.describe` or :meth:`State.view` give it), validated: ValueError
        naming the offending field if it is not a possible position.

        Its static shape (types, the ranges and lengths annotated in the proto) is checked
        here for every game (:mod:`fagin.engines.shape`), then the engine's decoder checks
        the rules that tie fields together and builds the state."""
        if self._check_shape is None:
            from fagin.engines.shape import checker
            self._check_shape = checker(self.id)
        self._check_shape(d)
        return self._trusted(self.engine.from_description(d, self))

    @cython.boundscheck(True)
    @cython.wraparound(True)
    def _trusted(self, data):
        """A state from POD bytes the engine itself produced.

        Not validated, so never exposed: a state's raw bytes feed the nogil
        rules directly, and bytes from anywhere else could make them read or
        write out of bounds.  To store a state and read it back, keep
        :meth:`State.describe` and use :meth:`from_description`.
        """
        cdef const unsigned char[::1] view = data
        if view.shape[0] != self.gd.state_size:
            raise ValueError(f"state bytes: expected {self.gd.state_size} bytes, got {view.shape[0]}")
        cdef State st = State.__new__(State)
        st.game = self
        st.data = <unsigned char*>malloc(self.gd.state_size)
        if st.data == NULL:
            raise MemoryError()
        memcpy(st.data, &view[0], self.gd.state_size)
        return st

    def __repr__(self):
        return f"Game({self.id!r})"


cdef class State:
    """A position of a game: a POD struct owned by this object.

    Mutating methods (:meth:`apply`, :meth:`make_current`) change the state in
    place; :meth:`clone` copies it with one ``memcpy``.
    """
    cdef readonly Game game
    cdef unsigned char* data

    def __dealloc__(self):
        free(self.data)

    cdef State _copy(self):
        cdef State st = State.__new__(State)
        st.game = self.game
        st.data = <unsigned char*>malloc(self.game.gd.state_size)
        if st.data == NULL:
            raise MemoryError()
        memcpy(st.data, self.data, self.game.gd.state_size)
        return st

    def clone(self):
        """An independent copy."""
        return self._copy()

    def to_bytes(self):
        """The raw POD bytes of the state (engine-specific layout)."""
        return (<char*>self.data)[:self.game.gd.state_size]

    def _address(self):
        """Address of the POD data, for the search module (valid while self lives)."""
        return <size_t>self.data

    @property
    def num_players(self):
        return self.game.gd.num_players(self.data)

    def current_player(self):
        """The seat to act, or :data:`CHANCE` (-1) or :data:`TERMINAL` (-2)."""
        return self.game.gd.current_player(self.data)

    def is_terminal(self):
        return self.game.gd.current_player(self.data) == PLAYER_TERMINAL

    def is_chance_node(self):
        return self.game.gd.current_player(self.data) == PLAYER_CHANCE

    def legal_actions(self, seat=None):
        """Legal action ids, ascending: of the player to act, or of ``seat`` (which must
        have a decision pending, see :meth:`with_seat_to_act`); chance outcome ids at a
        chance node; ``[]`` at the end."""
        if seat is not None:
            return self.with_seat_to_act(seat).legal_actions()
        cdef int buf[MAX_WRAPPER_ACTIONS]
        if self.is_terminal():
            return []
        cdef int n = self.game.gd.legal_actions(self.data, buf)
        if not 0 <= n <= self.game.gd.max_legal_actions:
            raise RuntimeError(f"{self.game.id}: legal_actions returned {n} actions, more than the "
                               f"{self.game.gd.max_legal_actions} the engine declares")
        return [buf[i] for i in range(n)]

    def chance_outcomes(self):
        """``[(action, probability), ...]`` at a chance node."""
        cdef int acts[MAX_WRAPPER_ACTIONS]
        cdef double probs[MAX_WRAPPER_ACTIONS]
        if not self.is_chance_node():
            raise ValueError("not a chance node")
        cdef int n = self.game.gd.chance_outcomes(self.data, acts, probs)
        if not 0 <= n <= self.game.gd.max_legal_actions:
            raise RuntimeError(f"{self.game.id}: chance_outcomes returned {n} outcomes, more than the "
                               f"{self.game.gd.max_legal_actions} the engine declares")
        return [(acts[i], probs[i]) for i in range(n)]

    def with_seat_to_act(self, seat):
        """A copy in which ``seat`` is the one to act (in a simultaneous phase it need
        not be the engine's first); ValueError if it has no decision pending."""
        st = self._copy()
        if st.is_terminal() or st.is_chance_node() or not st.make_current(seat):
            raise ValueError(f"seat: seat {seat} has no decision pending")
        return st

    def pending_seats(self):
        """Every seat that may decide now (several in a simultaneous phase); ``[]`` at
        a chance node or the end."""
        if self.is_terminal() or self.is_chance_node():
            return []
        return [s for s in range(self.num_players) if self._copy().make_current(s)]

    def apply(self, int action):
        """Applies ``action`` in place; raises :class:`IllegalActionError` if it is not legal."""
        self._require_legal(action)
        self.game.gd.apply_action(self.data, action)
        return self

    def _require_legal(self, int action):
        if action not in self.legal_actions():
            raise IllegalActionError(
                f"action {action} ({self._label_or_id(action)}) is not legal here; "
                f"legal: {self.legal_actions()}")

    def child(self, int action):
        """A copy with ``action`` applied."""
        return self._copy().apply(action)

    def sample_chance(self, seed):
        """Draws one chance outcome with ``seed`` (does not apply it)."""
        cdef Rng rng
        if not self.is_chance_node():
            raise ValueError("not a chance node")
        rng_seed(&rng, <uint64_t>seed)
        return self.game.gd.sample_chance(self.data, &rng)

    def resolve_chance(self, seed):
        """Applies chance outcomes drawn from ``seed`` until a seat must act or the game ends."""
        cdef Rng rng
        rng_seed(&rng, <uint64_t>seed)
        while self.game.gd.current_player(self.data) == PLAYER_CHANCE:
            self.game.gd.apply_action(self.data, self.game.gd.sample_chance(self.data, &rng))
        return self

    def resolve_chance_with_events(self, seed, seats=None, drawn=None):
        """:meth:`resolve_chance` (the very same draws from ``seed``), returning ``{seat:
        events}`` of every outcome drawn, as :meth:`events` tells them, for each of ``seats``
        (default: every seat): a game's opening deal as each seat saw it. ``drawn``: a list
        the outcomes are appended to, in order (a game record's opening moves)."""
        cdef Rng rng
        cdef State before
        cdef int outcome
        rng_seed(&rng, <uint64_t>seed)
        seats = range(self.num_players) if seats is None else seats
        told = {s: [] for s in seats}
        while self.game.gd.current_player(self.data) == PLAYER_CHANCE:
            before = self._copy()
            outcome = self.game.gd.sample_chance(self.data, &rng)
            self.game.gd.apply_action(self.data, outcome)
            if drawn is not None:
                drawn.append(outcome)
            for s in seats:
                told[s].extend(before.events(outcome, self, s))
        return told

    @cython.boundscheck(True)
    @cython.wraparound(False)
    def replay(self, seats, actions):
        """Applies a game record's moves in place, in order, each checked in C over the ABI:
        ``actions[i]`` by ``seats[i]`` (a seat with a decision pending, made the one to act;
        -1: a chance outcome, which must have a positive probability; -2: the seat the
        engine asks next). Returns how many were applied: ``len(actions)`` when every move
        was legal, else the index of the first that was not, the state then being the
        position before it. A whole game's record is one call, not a Python step a move."""
        cdef Py_ssize_t n = len(actions)
        if len(seats) != n:
            raise ValueError("seats and actions differ in length")
        cdef int[::1] seat_of = array_of_ints(seats)
        cdef int[::1] action_of = array_of_ints(actions)
        cdef const GameDef* gd = self.game.gd
        cdef int buf[MAX_WRAPPER_ACTIONS]
        cdef double probs[MAX_WRAPPER_ACTIONS]
        cdef int players = gd.num_players(self.data)
        cdef Py_ssize_t i
        cdef int p, s, a, m, k, legal
        cdef Py_ssize_t applied = n
        with nogil:
            for i in range(n):
                p = gd.current_player(self.data)
                s = seat_of[i]
                a = action_of[i]
                legal = 0
                if p == PLAYER_TERMINAL:
                    m = 0
                elif s == PLAYER_CHANCE or p == PLAYER_CHANCE:
                    m = gd.chance_outcomes(self.data, buf, probs) if s == p else 0
                elif s != -2 and s != p and (s < 0 or s >= players or not gd.make_current(self.data, s)):
                    m = 0
                else:
                    m = gd.legal_actions(self.data, buf)
                for k in range(m):
                    if buf[k] == a and (p != PLAYER_CHANCE or probs[k] > 0):
                        legal = 1
                        break
                if not legal:
                    applied = i
                    break
                gd.apply_action(self.data, a)
        return applied

    def returns(self):
        """Per-seat returns (only meaningful at a terminal state)."""
        cdef double out[MAX_SEATS]
        if not self.is_terminal():
            raise ValueError("returns are defined only for terminal states")
        self.game.gd.returns(self.data, out)
        return [out[i] for i in range(self.game.gd.num_players(self.data))]

    def infoset_key(self, int player):
        """64-bit information-set key of ``player``."""
        self._check_seat(player, "player")
        return self.game.gd.infoset_key(self.data, player)

    def view_key(self, int seat):
        """64-bit key of ``seat``'s view (:meth:`view`): equal for two states exactly when the
        seat's views of them are (``GameDef.view_key``); its information-set key where the
        engine keys views no apart from information sets (every game but London)."""
        self._check_seat(seat, "seat")
        if self.game.gd.view_key == NULL:
            return self.game.gd.infoset_key(self.data, seat)
        return self.game.gd.view_key(self.data, seat)

    def observation(self, int seat):
        """What ``seat`` knows of this position, as a 64-bit number: a game record's ``check``
        (``fagin.engines.records.observation``, whose doc says why it is made so)."""
        self._check_seat(seat, "seat")
        return _observation(self.game.gd, self.data, seat)

    def next_moves_observed(self, int seat, check):
        """The moves possible next here (the legal actions at a decision, the outcomes of
        positive probability at a chance event) after which ``seat``'s :meth:`observation` is
        ``check`` (every one if ``check`` is None): ``(how many moves are possible, [those
        moves])``.  In C over the ABI, a child at a time: the replay of a seat's view fills an
        unseen move with these."""
        self._check_seat(seat, "seat")
        cdef const GameDef* gd = self.game.gd
        cdef bint any_check = check is None
        cdef uint64_t wanted = 0 if any_check else <uint64_t>check
        cdef int buf[MAX_WRAPPER_ACTIONS]
        cdef double probs[MAX_WRAPPER_ACTIONS]
        cdef int m, j, kept = 0
        cdef unsigned char* child = <unsigned char*>malloc(gd.state_size)
        if child == NULL:
            raise MemoryError()
        try:
            with nogil:
                m = _possible(gd, self.data, buf, probs)
                for j in range(m):
                    if not any_check:
                        memcpy(child, self.data, gd.state_size)
                        gd.apply_action(child, buf[j])
                        if _observation(gd, child, seat) != wanted:
                            continue
                    buf[kept] = buf[j]
                    kept += 1
            return m, [buf[j] for j in range(kept)]
        finally:
            free(child)

    def sees_next(self, int seat, int twins, seed):
        """Whether ``seat`` sees the move made next here, a decision of the seat to act or a
        chance outcome (the verdict of ``fagin.engines.records.sees``, whose doc says why):
        its own decision always; otherwise, over ``twins`` determinizations of this position
        for the seat (seeds ``seed``, ``seed + 1``, ...), whether every move possible in any
        of them leads it to a different information set, or where the engine keys views
        (``GameDef.view_key``), to a different view.  In C over the ABI: the children's keys
        are kept in a hash table and a view's key is computed only where two moves' keys
        agree (from the twin made again, so that no child is kept)."""
        self._check_seat(seat, "seat")
        if not 1 <= twins <= 64:
            raise ValueError(f"twins: {twins}, not in [1, 64]")
        cdef const GameDef* gd = self.game.gd
        cdef int actor = gd.current_player(self.data)
        if actor == seat:
            return True
        cdef int per_twin = gd.max_legal_actions
        cdef Py_ssize_t cap = <Py_ssize_t>twins * per_twin
        cdef Py_ssize_t buckets = 1
        while buckets < 2 * cap:
            buckets *= 2
        cdef size_t size = gd.state_size
        cdef unsigned char* twin = <unsigned char*>malloc(size)
        cdef unsigned char* child = <unsigned char*>malloc(size)
        cdef uint64_t* keys = <uint64_t*>malloc(cap * sizeof(uint64_t))
        cdef uint64_t* views = <uint64_t*>malloc(cap * sizeof(uint64_t))
        cdef int* acts = <int*>malloc(cap * sizeof(int))
        cdef int* made_in = <int*>malloc(cap * sizeof(int))       # the twin, -1 once `views` holds the key
        cdef int* chain = <int*>malloc(cap * sizeof(int))
        cdef int* heads = <int*>malloc(buckets * sizeof(int))
        cdef int buf[MAX_WRAPPER_ACTIONS]
        cdef double probs[MAX_WRAPPER_ACTIONS]
        cdef Rng rng
        cdef uint64_t base = <uint64_t>seed, key, view
        cdef int k, j, m, a, e, distinct = 0, entries = 0, verdict = -1, other, known
        cdef Py_ssize_t b
        try:
            if (twin == NULL or child == NULL or keys == NULL or views == NULL or acts == NULL or made_in == NULL
                    or chain == NULL or heads == NULL):
                raise MemoryError()
            with nogil:
                for b in range(buckets):
                    heads[b] = -1
                for k in range(twins):
                    memcpy(twin, self.data, size)
                    rng_seed(&rng, base + <uint64_t>k)
                    gd.determinize(twin, seat, &rng)
                    if actor != PLAYER_CHANCE and not gd.make_current(twin, actor):
                        verdict = 0
                        break
                    m = _possible(gd, twin, buf, probs)
                    for j in range(m):
                        a = buf[j]
                        memcpy(child, twin, size)
                        gd.apply_action(child, a)
                        key = gd.infoset_key(child, seat)
                        b = <Py_ssize_t>(key * <uint64_t>0x9E3779B97F4A7C15 >> 40) & (buckets - 1)
                        other = 0
                        known = 0
                        e = heads[b]
                        while e >= 0:
                            if keys[e] == key:
                                known = 1
                                if acts[e] != a:
                                    other = 1
                            e = chain[e]
                        if other:
                            # Another move leads to this information set: told apart only by
                            # the views, where the engine keys them.
                            if gd.view_key == NULL:
                                verdict = 0
                                break
                            view = gd.view_key(child, seat)
                            e = heads[b]
                            while e >= 0:
                                if keys[e] == key and acts[e] != a:
                                    if made_in[e] >= 0:
                                        views[e] = _view_in_twin(gd, self.data, twin if made_in[e] == k else NULL,
                                                                 child, base + <uint64_t>made_in[e], seat, actor,
                                                                 acts[e])
                                        made_in[e] = -1
                                        # `child` was reused: the move's own child, again.
                                        memcpy(child, twin, size)
                                        gd.apply_action(child, a)
                                    if views[e] == view:
                                        verdict = 0
                                        break
                                e = chain[e]
                            if verdict == 0:
                                break
                        elif known:
                            continue
                        else:
                            distinct += 1
                            view = 0
                        if entries < cap:
                            keys[entries] = key
                            acts[entries] = a
                            views[entries] = view
                            made_in[entries] = -1 if other else k
                            chain[entries] = heads[b]
                            heads[b] = entries
                            entries += 1
                    if verdict == 0:
                        break
            if verdict == 0:
                return False
            return distinct > 1 or (actor != PLAYER_CHANCE and distinct == 1)
        finally:
            free(twin)
            free(child)
            free(keys)
            free(views)
            free(acts)
            free(made_in)
            free(chain)
            free(heads)

    def scores(self):
        """Each seat's score in the game's own units (final at a terminal state, as it
        stands otherwise), or None if the engine reports none (``GameDef.scores``)."""
        cdef double out[MAX_SEATS]
        if self.game.gd.scores == NULL:
            return None
        self.game.gd.scores(self.data, out)
        return [out[i] for i in range(self.game.gd.num_players(self.data))]

    def hidden_counts(self, int observer):
        """The copies of each item in each place ``observer`` cannot see into, as
        ``GameDef.hidden_counts`` writes them (a list of ``places * items`` counts), or
        None if the engine counts none."""
        self._check_seat(observer, "observer")
        if not self.game.has_beliefs:
            return None
        cdef int cells = self.game.gd.belief_places * self.game.gd.belief_items
        cdef int* out = <int*>malloc(sizeof(int) * cells)
        if out == NULL:
            raise MemoryError()
        try:
            self.game.gd.hidden_counts(self.data, observer, out)
            return [out[i] for i in range(cells)]
        finally:
            free(out)

    def rollout_action(self, seed):
        """The pick of the engine's rollout policy (``GameDef.rollout_action``) for the
        player to act, from ``seed``; None without a policy or away from a decision."""
        cdef Rng rng
        cdef int p = self.game.gd.current_player(self.data)
        if self.game.gd.rollout_action == NULL or p < 0:
            return None
        rng_seed(&rng, <uint64_t>seed)
        return self.game.gd.rollout_action(self.data, &rng)

    def determinize(self, int observer, seed):
        """A copy in which everything ``observer`` cannot see is resampled from ``seed``."""
        cdef Rng rng
        self._check_seat(observer, "observer")
        rng_seed(&rng, <uint64_t>seed)
        cdef State st = self._copy()
        self.game.gd.determinize(st.data, observer, &rng)
        return st

    def make_current(self, int seat):
        """Makes ``seat`` the next to decide in a simultaneous phase; False if it has no decision pending."""
        self._check_seat(seat, "seat")
        return bool(self.game.gd.make_current(self.data, seat))

    def options(self):
        """The game options this state was made with, where the engine records them
        (``options_of``; an empty dict otherwise)."""
        options_of = getattr(self.game.engine, "options_of", None)
        return {} if options_of is None else options_of(self.to_bytes())

    def action_label(self, int action, typed=None):
        """Human-readable label of an action id here (a chance outcome at a chance node).

        Where a game merges identical cards into one action (London, LN-93), the label
        names the very card the action moves here (``action_label_at``), or the one the
        typed form ``typed`` names (as :meth:`apply_typed` moves it)."""
        at = getattr(self.game.actions, "action_label_at", None)
        if at is not None and not self.is_chance_node():
            return at(self.to_bytes(), action, typed)
        return self.game.action_label(action, self.is_chance_node(), self.options() or None)

    def apply_typed(self, d):
        """Applies the action of a typed form (a dict shaped like the game's action message)
        in place and returns its id; ValueError naming the field if it fits no action,
        :class:`IllegalActionError` if it is not legal. Where identical cards are one action
        (London, LN-93) and the form names one of them, that very card is moved
        (``apply_typed_at``)."""
        chance = self.is_chance_node()
        action = self.game.action_from_typed(d, chance, self.options() or None)
        at = getattr(self.game.actions, "apply_typed_at", None)
        if at is None or chance:
            self.apply(action)
            return action
        self._require_legal(action)
        data = at(self.to_bytes(), action, d)
        if len(data) != self.game.gd.state_size:
            raise TypeError(f"{self.game.id}: apply_typed_at returned {len(data)} bytes")
        memcpy(self.data, <const unsigned char*>data, self.game.gd.state_size)
        return action

    def _label_or_id(self, action):
        try:
            return self.action_label(action)
        except (ValueError, IndexError):
            return f"#{action}"

    def describe(self):
        """The whole state as a plain dict shaped like the game's state message."""
        return self.game.engine.describe(self.to_bytes())

    def view(self, seat):
        """The state as ``seat`` knows it: a description with everything it cannot see
        removed (valid input to :meth:`Game.from_description`)."""
        self._check_seat(seat, "seat")
        return self.game.engine.view(self.to_bytes(), seat)

    def render(self, seat=None):
        """A few lines of text showing the table (as ``seat`` sees it, if given)."""
        if seat is not None:
            self._check_seat(seat, "seat")
        return self.game.engine.render(self.to_bytes(), seat)

    def typed_action(self, int action, typed=None):
        """The typed form (a dict shaped like the game's action message) of an action id
        here (a chance outcome at a chance node); naming, like :meth:`action_label`, the
        card the action moves here where a game has such a hook (``typed_action_at``)."""
        at = getattr(self.game.actions, "typed_action_at", None)
        if at is not None and not self.is_chance_node():
            return at(self.to_bytes(), action, typed)
        return self.game.typed_action(action, self.is_chance_node(), self.options() or None)

    def events(self, int action, State after, int seat):
        """The events of the transition from this state by ``action`` (a chance outcome at a
        chance node) to ``after``, described as ``seat`` saw them: a list of dicts shaped
        like ``fagin.v1.Event`` (``label``, ``seat``, ``summary``, ``typed``), written once by
        the game's room (``engines/<id>/events.py``) and holding nothing ``seat`` may not know."""
        from fagin.engines.game import transition_events
        self._check_seat(seat, "seat")
        if after.game is not self.game:
            raise ValueError("after: a state of another game")
        return transition_events(self, action, after, seat)

    def _check_seat(self, int seat, str name):
        n = self.game.gd.num_players(self.data)
        if not 0 <= seat < n:
            raise ValueError(f"{name}: seat {seat} out of range [0, {n})")

    def __eq__(self, other):
        if not isinstance(other, State):
            return NotImplemented
        cdef State o = other
        return o.game is self.game and memcmp(o.data, self.data, self.game.gd.state_size) == 0

    def __hash__(self):
        return hash(self.to_bytes())

    def __str__(self):
        return self.render()

    def __repr__(self):
        return f"<{self.game.id} state: {self.game.engine.summary(self.to_bytes())}>"


cdef int _possible(const GameDef* gd, const unsigned char* st, int* out, double* probs) noexcept nogil:
    """The moves possible in ``st`` into ``out``: the legal actions at a decision, the outcomes of
    positive probability at a chance event, none at the end; returns their count."""
    cdef int p = gd.current_player(st), n, i, m = 0
    if p == PLAYER_TERMINAL:
        return 0
    if p != PLAYER_CHANCE:
        return gd.legal_actions(st, out)
    n = gd.chance_outcomes(st, out, probs)
    for i in range(n):
        if probs[i] > 0:
            out[m] = out[i]
            m += 1
    return m


# What a game record's check is made of (records.observation): the bits of a view's key in it, in
# a game whose engine keys views, and the mark folded in with the returns at the end.
cdef uint64_t OBSERVED_VIEW_BITS = (<uint64_t>1 << 24) - 1
cdef uint64_t OBSERVED_END = 0x0E4D0F6A3E


cdef uint64_t _observation(const GameDef* gd, const unsigned char* st, int seat) noexcept nogil:
    """``seat``'s information-set key, at the end with the returns folded in (to 1e-9), and the
    low bits replaced by those of its view's key where the engine keys views."""
    cdef uint64_t key = gd.infoset_key(st, seat)
    cdef double out[MAX_SEATS]
    cdef int p
    if gd.current_player(st) == PLAYER_TERMINAL:
        gd.returns(st, out)
        key = mix64(key, OBSERVED_END)
        for p in range(gd.num_players(st)):
            key = mix64(key, <uint64_t>llround(out[p] * 1e9))
    if gd.view_key != NULL:
        key = (key & ~OBSERVED_VIEW_BITS) | (gd.view_key(st, seat) & OBSERVED_VIEW_BITS)
    return key


cdef uint64_t _view_in_twin(const GameDef* gd, const unsigned char* before, const unsigned char* twin,
                            unsigned char* scratch, uint64_t seed, int seat, int actor, int action) noexcept nogil:
    """The key of ``seat``'s view after ``action`` in the determinization of ``before`` drawn from
    ``seed`` (``twin``, when it is at hand; else made again in ``scratch``)."""
    cdef Rng rng
    if twin != NULL:
        memcpy(scratch, twin, gd.state_size)
    else:
        memcpy(scratch, before, gd.state_size)
        rng_seed(&rng, seed)
        gd.determinize(scratch, seat, &rng)
        if actor != PLAYER_CHANCE:
            gd.make_current(scratch, actor)
    gd.apply_action(scratch, action)
    return gd.view_key(scratch, seat)


cdef int[::1] array_of_ints(values):
    """A contiguous C int array of Python ints (OverflowError beyond an int)."""
    return pyarray.array("i", values)


cdef const GameDef* _game_def(capsule) except NULL:
    if not PyCapsule_IsValid(capsule, GAMEDEF_CAPSULE):
        raise TypeError("capsule: not a GameDef capsule")
    return <const GameDef*>PyCapsule_GetPointer(capsule, GAMEDEF_CAPSULE)


cdef const unsigned char* _state_of(const GameDef* gd, const unsigned char[::1] view) except NULL:
    if view.shape[0] != gd.state_size:
        raise ValueError(f"data: {view.shape[0]} bytes, not a {gd.game_id.decode()} state "
                         f"({gd.state_size} bytes)")
    return &view[0]


def features_of_state(capsule, data, int seat):
    """Seat ``seat``'s features in the state ``data`` (``GameDef.features``: the inputs of the
    room's learned evaluation, named by its ``FEATURE_NAMES``), written once for every engine;
    ValueError for a seat outside the game, None if the engine defines no features."""
    cdef const GameDef* gd = _game_def(capsule)
    cdef const unsigned char[::1] view = data
    cdef const unsigned char* st = _state_of(gd, view)
    cdef int players = gd.num_players(st), k = gd.num_features, i
    if gd.features == NULL or k <= 0:
        return None
    if not 0 <= seat < players:
        raise ValueError(f"seat: {seat} is not a seat of this {players}-player game")
    cdef double* out = <double*>malloc(players * k * sizeof(double))
    if out == NULL:
        raise MemoryError()
    try:
        gd.features(st, out)
        return [out[seat * k + i] for i in range(k)]
    finally:
        free(out)


def heuristic_action_of_state(capsule, data, seed=0):
    """The rule-based player's action for the seat to act in ``data`` (``GameDef.heuristic_action``,
    ties broken by ``seed``), written once for every engine with a nogil heuristic; -1 at a
    chance event or the end of the game."""
    cdef const GameDef* gd = _game_def(capsule)
    cdef const unsigned char[::1] view = data
    cdef const unsigned char* st = _state_of(gd, view)
    cdef Rng rng
    if gd.heuristic_action == NULL:
        raise TypeError(f"{gd.game_id.decode()}: the engine has no nogil heuristic")
    if gd.current_player(st) < 0:
        return -1
    rng_seed(&rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
    return gd.heuristic_action(st, &rng)


def evaluate_state(capsule, data, bint learned=False):
    """A game's estimate of each seat's return in the state ``data`` (its bytes), written once
    for every engine: the hand-written ``GameDef.evaluate``, or with ``learned`` its
    ``evaluate_learned`` (the model shipped in the room; the hand-written estimate where the
    room ships no model, and for a player count the model lacks).  None if the engine has no
    estimate at all.  An engine's
    ``evaluation`` and ``learned_evaluation`` are this, with its ``GAME_DEF``."""
    cdef const GameDef* gd = _game_def(capsule)
    cdef const unsigned char[::1] view = data
    cdef const unsigned char* st = _state_of(gd, view)
    cdef double out[MAX_SEATS]
    if learned and gd.evaluate_learned != NULL:
        gd.evaluate_learned(gd.learned, st, out)
    elif gd.evaluate != NULL:
        gd.evaluate(st, out)
    else:
        return None
    return [out[i] for i in range(gd.num_players(st))]


def learned_margins_of_state(capsule, data):
    """Each seat's learned expected final score margin in the state ``data`` (its bytes):
    ``GameDef.margins_learned``, the margin model of the room's data/learned.json for this
    player count; None at the end of the game (the final margin is known) and where the room
    ships none (or none for this player count).  What an analysis reports where a playout
    stops early."""
    cdef const GameDef* gd = _game_def(capsule)
    cdef const unsigned char[::1] view = data
    cdef const unsigned char* st = _state_of(gd, view)
    cdef double out[MAX_SEATS]
    if gd.margins_learned == NULL or not gd.margins_learned(gd.learned, st, out):
        return None
    return [out[i] for i in range(gd.num_players(st))]


def room_functions(capsule):
    """An engine's plain functions on its state bytes, written once for every room with a
    learned evaluation: ``(heuristic_action, evaluation, features, learned_evaluation)``
    for the engine's ``GAME_DEF``, as its module's names of the same names.

    - ``heuristic_action(data, seed=0)``: the nogil rule-based player's action for the seat
      to act (``GameDef.heuristic_action``, the rollout policy without its random share;
      ties broken by ``seed``); -1 at a chance event or the end of the game.  The room's
      served heuristic bot is its heuristic.py's.
    - ``evaluation(data)``: the hand-written estimate of each seat's return
      (``GameDef.evaluate``; for tests and the trainer).
    - ``features(data, seat)``: seat ``seat``'s features (``GameDef.features``, named by the
      room's ``FEATURE_NAMES``), the inputs of the learned evaluation (python -m fagin.train).
    - ``learned_evaluation(data)``: the learned estimate of each seat's return
      (``GameDef.evaluate_learned``, the room's data/learned.json for this player count; the
      hand-written one without)."""
    _game_def(capsule)      # a capsule that is no GameDef fails here, at the room's import

    def heuristic_action(data, seed=0):
        return heuristic_action_of_state(capsule, data, seed)

    def evaluation(data):
        return evaluate_state(capsule, data)

    def features(data, int seat):
        return features_of_state(capsule, data, seat)

    def learned_evaluation(data):
        return evaluate_state(capsule, data, learned=True)

    for f in (heuristic_action, evaluation, features, learned_evaluation):
        f.__doc__ = f"See fagin.engines.core.room_functions: {f.__name__}."
    return heuristic_action, evaluation, features, learned_evaluation
