# cython: language_level=3
"""A kit for learned evaluations: per player count, a logistic regression on a room's features for
each seat's chance to win, and a linear one for its expected final score margin.

A room that ships ``data/learned.json`` (fitted by ``python -m fagin.train``) keeps
one ``LearnedModel`` in its ``LearnedRoom`` (below), fills it from the file with
:func:`learned_load` (the file read and checked by
``fagin.engines.learned_model.read_model``) and evaluates it in the search loop
with :func:`learned_evaluate` (built on :func:`learned_has` and
:func:`learned_logistic`), without the GIL.  The
room defines its features (one function writing every seat's values, read from
what every seat sees; :func:`learned_relative` takes seat features relative to
the best other seat) and names them in ``FEATURE_NAMES``, and its
``PROGRESS_FEATURE`` (the share of the game still ahead, for the trainer's
mid-game figures); the model holds one weight per feature.  A model may also hold, per
player count, a linear regression of a seat's final score margin (its final score less the best
other seat's, in the game's own units) on the same features: :func:`learned_evaluate_margins`,
a room's ``GameDef.margins_learned``, which an analysis reports where a playout stops early.

A room's part of it is one line at import: :func:`learned_room` makes the room's
``LearnedRoom`` (the model and the room's table), hangs it on the table (``GameDef.learned``)
and, once a model file holds a player count, puts the kit's own two functions in the table:
``GameDef.evaluate_learned`` is :func:`learned_room_evaluate` and ``margins_learned`` is
:func:`learned_room_margins`.  The table passes them its ``learned`` first, so one function
of the kit reads whichever room's model it is called for.

A compiled module, ``fagin.engines.learned`` (``engines/learned.pyx`` holds the functions):
every room cimports its functions through this file (``from fagin.engines.learned cimport
...``) and calls the one copy (docs/architecture.md, "One package from several folders").
"""
from fagin.engines.abi cimport GameDef, MAX_SEATS, StateValues

cdef enum:
    # Most features a room's model may have (sizes LearnedModel).
    LEARNED_MAX_FEATURES = 32

ctypedef struct LearnedModel:
    int features                                    # features per seat (the room's FEATURE_NAMES)
    int have[MAX_SEATS + 1]                         # 1 if the model holds this player count
    double bias[MAX_SEATS + 1]
    double weights[MAX_SEATS + 1][LEARNED_MAX_FEATURES]
    int have_margin[MAX_SEATS + 1]                  # 1 if it also holds a margin model for this count
    double margin_bias[MAX_SEATS + 1]
    double margin_weights[MAX_SEATS + 1][LEARNED_MAX_FEATURES]

ctypedef StateValues SeatValues

# A room's learned evaluation: kept by the kit for the room's table (GameDef.learned).
ctypedef struct LearnedRoom:
    LearnedModel model
    # The room's table: its seats, end, returns, hand-written evaluation and features, which
    # the learned evaluation reads beside the model.
    const GameDef* game

cdef void learned_relative(const double* raw, int players, int k, double* out, int stride) noexcept nogil
cdef bint learned_has(const LearnedModel* m, int players) noexcept nogil
cdef void learned_linear(const double* weights, double bias, int k, int players, const double* f,
                         double* out) noexcept nogil
cdef void learned_logistic(const LearnedModel* m, int players, const double* f, double* out) noexcept nogil
cdef void learned_evaluate(const LearnedModel* m, const void* st, int players, bint over,
                           SeatValues returns, SeatValues evaluate, SeatValues features,
                           double* out) noexcept nogil
cdef bint learned_evaluate_margins(const LearnedModel* m, const void* st, int players, bint over,
                                   SeatValues features, double* out) noexcept nogil
cdef object learned_load(LearnedModel* m, path, names, int max_players, str game)
cdef void learned_room_evaluate(const void* room, const void* st, double* out) noexcept nogil
cdef bint learned_room_margins(const void* room, const void* st, double* out) noexcept nogil
cdef object learned_room(GameDef* gd, dict namespace, path, names, str game)
