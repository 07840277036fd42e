# cython: language_level=3
"""The learned-evaluation kit's functions, declared (with the model's layout) in
``engines/learned.pxd``; the rooms cimport them from there."""
from libc.math cimport exp
from libc.stdlib cimport calloc

from fagin.engines.abi cimport PLAYER_TERMINAL


cdef void learned_relative(const double* raw, int players, int k, double* out,
                           int stride) noexcept nogil:
    """Seat features taken relative to the best other seat: out[p * stride + i], for i < k, is
    seat p's own value raw[p * k + i] less the largest value of any other seat."""
    cdef int p, q, i
    cdef double best
    for p in range(players):
        for i in range(k):
            best = -1e300
            for q in range(players):
                if q != p and raw[q * k + i] > best:
                    best = raw[q * k + i]
            out[p * stride + i] = raw[p * k + i] - best

cdef bint learned_has(const LearnedModel* m, int players) noexcept nogil:
    """Whether the model holds an entry for this player count."""
    return 0 <= players <= MAX_SEATS and m.have[players] != 0

cdef void learned_linear(const double* weights, double bias, int k, int players, const double* f,
                         double* out) noexcept nogil:
    """Each seat's linear score: out[p], for p < players, is ``bias`` plus the k ``weights``
    times seat p's k values at f[p * k:]."""
    cdef int p, i
    cdef double z
    for p in range(players):
        z = bias
        for i in range(k):
            z += weights[i] * f[p * k + i]
        out[p] = z

cdef void learned_logistic(const LearnedModel* m, int players, const double* f,
                           double* out) noexcept nogil:
    """Each seat's learned win probability: out[p], for p < players, is the logistic of seat p's
    m.features values at f[p * m.features:] under the weights for this player count (which
    learned_has must have found)."""
    cdef int p
    learned_linear(m.weights[players], m.bias[players], m.features, players, f, out)
    for p in range(players):
        out[p] = 1.0 / (1.0 + exp(-out[p]))

cdef void learned_evaluate(const LearnedModel* m, const void* st, int players, bint over,
                           SeatValues returns, SeatValues evaluate, SeatValues features,
                           double* out) noexcept nogil:
    """A room's ``GameDef.evaluate_learned``, the same in every room: each seat's learned win
    probability, the logistic of its features (``features`` writes every seat's), in
    out[0:players]; the ``returns`` once the game is ``over``, and the hand-written
    ``evaluate`` for a player count the model holds no entry for."""
    cdef double f[(MAX_SEATS + 1) * LEARNED_MAX_FEATURES]
    if over:
        returns(st, out)
        return
    if not learned_has(m, players):
        evaluate(st, out)
        return
    features(st, f)
    learned_logistic(m, players, f, out)

cdef bint learned_evaluate_margins(const LearnedModel* m, const void* st, int players, bint over,
                                  SeatValues features, double* out) noexcept nogil:
    """A room's ``GameDef.margins_learned``, the same in every room: each seat's expected final
    score margin, the margin model on its features, in out[0:players]; False (out untouched)
    once the game is ``over`` (the final margin is then known) and for a player count the
    model holds no margin model for (the caller then takes the margin as it stands)."""
    cdef double f[(MAX_SEATS + 1) * LEARNED_MAX_FEATURES]
    if over or not (0 <= players <= MAX_SEATS and m.have_margin[players] != 0):
        return False
    features(st, f)
    learned_linear(m.margin_weights[players], m.margin_bias[players], m.features, players, f, out)
    return True

cdef object learned_load(LearnedModel* m, path, names, int max_players, str game):
    """Empties the model, then reads the model file at ``path`` into it (checked against the
    room's feature ``names`` and its player counts, 2 to ``max_players``; ValueError naming the
    file and the field).  Returns the document read, or None when there is no file."""
    from fagin.engines.learned_model import read_model
    cdef int n, i
    if len(names) > LEARNED_MAX_FEATURES or max_players > MAX_SEATS:
        raise ValueError(f"{game}: {len(names)} features for up to {max_players} players; a learned "
                         f"model holds at most {LEARNED_MAX_FEATURES} features, {MAX_SEATS} players")
    for n in range(MAX_SEATS + 1):
        m.have[n] = 0
        m.bias[n] = 0.0
        m.have_margin[n] = 0
        m.margin_bias[n] = 0.0
        for i in range(LEARNED_MAX_FEATURES):
            m.weights[n][i] = 0.0
            m.margin_weights[n][i] = 0.0
    m.features = len(names)
    doc, models = read_model(path, names, max_players, game)
    for n, entry in models.items():
        for i in range(m.features):
            m.weights[n][i] = entry.weights[i]
        m.bias[n] = entry.bias
        m.have[n] = 1
        if entry.margin is not None:
            for i in range(m.features):
                m.margin_weights[n][i] = entry.margin[0][i]
            m.margin_bias[n] = entry.margin[1]
            m.have_margin[n] = 1
    return doc

cdef void learned_room_evaluate(const void* room, const void* st, double* out) noexcept nogil:
    """Every room's ``GameDef.evaluate_learned``: :func:`learned_evaluate` on the room's model
    (``room``, the table's ``learned``), with the seats, the end of the game, the returns, the
    hand-written evaluation and the features of the room's table."""
    cdef const LearnedRoom* r = <const LearnedRoom*>room
    cdef const GameDef* gd = r.game
    learned_evaluate(&r.model, st, gd.num_players(st), gd.current_player(st) == PLAYER_TERMINAL,
                     gd.returns, gd.evaluate, gd.features, out)

cdef bint learned_room_margins(const void* room, const void* st, double* out) noexcept nogil:
    """Every room's ``GameDef.margins_learned``: :func:`learned_evaluate_margins` on the room's
    model (False at the end of the game and for a player count it holds no margin model for)."""
    cdef const LearnedRoom* r = <const LearnedRoom*>room
    cdef const GameDef* gd = r.game
    return learned_evaluate_margins(&r.model, st, gd.num_players(st), gd.current_player(st) == PLAYER_TERMINAL,
                                    gd.features, out)

cdef object learned_room(GameDef* gd, dict namespace, path, names, str game):
    """A room's learned evaluation, loaded: reads the model file at ``path`` (the room's
    ``data/learned.json``: its features ``names``, player counts 2 to the table's
    ``max_players``; ``game`` names the room in errors) into a model the kit keeps for the
    table ``gd`` (its ``learned``, for as long as the process: a room is never unloaded), as
    :func:`learned_load`, and the document read into the room's ``namespace`` (its module's
    globals) as ``LEARNED`` (None without a file, or while a file is refused).  A model that
    holds any player count puts the kit's two learned entries, ``evaluate_learned`` and
    ``margins_learned``, in the table; once there they stay, the model they read reloaded in
    place.

    Returns the room's ``_load_learned(path=path)``, which reads a model file again the same
    way (tests try other files through it) and says whether it holds any player count."""
    cdef LearnedRoom* room = <LearnedRoom*>gd.learned
    if room == NULL:
        room = <LearnedRoom*>calloc(1, sizeof(LearnedRoom))
        if room == NULL:
            raise MemoryError()
        room.game = gd
        gd.learned = room
    default = path

    def _load_learned(path=default):
        """Reads the model file at ``path`` (the room's data/learned.json by default) into the
        room's model and ``LEARNED``; whether it holds any player count."""
        namespace["LEARNED"] = None
        doc = namespace["LEARNED"] = learned_load(&room.model, path, names, gd.max_players, game)
        if doc is None or not doc.get("models"):
            return False
        gd.evaluate_learned = learned_room_evaluate
        gd.margins_learned = learned_room_margins
        return True

    _load_learned()
    return _load_learned
