# cython: language_level=3
"""London (Martin Wallace, Treefrog 2010, first edition): the rules engine.

The rules in our words, each cited here as ``LN-n``, are in
``seeds/london.md``; the components (110 cards in 76 versions, 20 boroughs,
the poverty table) are data in ``data/``, read and checked by
``components.py`` and copied into this module's tables when it is imported.

Cards.  A card in the state is its *version* (its index in ``cards.json``:
Salters and Grocers are two versions).  Decisions name a card's *kind*
(LN-93: versions that no rule tells apart, letter included, are one kind);
the engine then moves the copy of that kind with the lowest version index.

The state (``LNState``) is plain data, every field an ``int16_t`` or a
``uint64_t`` so that it converts to and from a Python dict (``_raw`` and
``_pack``, used by the Python side in ``state.py``):

* ``hand[p][v]`` — copies of version ``v`` in seat ``p``'s hand;
  ``known[p][v]`` — how many of them every seat is sure of (taken from the
  Card Display, LN-84); ``owner_sure[p][v]`` — how many the University owner
  (``uni_owner``) is sure of (``known`` plus the cards it put back on the
  deck that ``p`` then drew, LN-85);
* ``deck[v]`` — the unseen deck as counts (its letters lie A above B above
  C, so a draw takes the topmost letter, LN-85); ``top[0:top_n]`` — cards
  put back by University of London, ``top[0]`` drawn next; ``look[0:look_n]``
  — cards looked at by University and not yet taken or put back;
* ``display[r][0:display_n[r]]`` — the Card Display's rows (0 top, 1
  bottom), each kept sorted (LN-21); ``discard[v]``;
* ``pc_*[p][i]`` for ``i < pc_n[p]`` — the cards of ``p``'s Building Display
  in the order placed: version, stack id (``0..stacks[p]-1``), flags
  (``F_*``) and the money on a Shops; the uncovered card of each stack is
  its top;
* ``owner[b]`` — seat with a building counter in borough ``b`` or -1;
  ``underground[b]`` — 1 if it holds an Underground counter.

Action ids (stable; ``K`` is a kind index, ``V`` a version index, ``B`` a
borough index, all in data-file order):

* ``0`` take the top card of the deck;  ``1`` done (Play Cards, Run City);
  ``2`` stop (Parliament's draw, a prison, the Workhouse, the Hospitals);
  ``3`` / ``4`` University: look at the top three / do not look;
  ``5`` Stock Exchange: no swap;  ``6..9`` Play Cards, Run City, Buy Land,
  Take Three Cards;  ``10`` start a new stack;
* ``12 + seat`` choose that player (Fleet Street, Police Force);
* ``16 + B`` buy borough ``B``;  ``40 + B`` put an Underground counter in ``B``;
* ``64 + 80 * r + K`` for the kind ranges ``R_*`` below (take from the top /
  bottom row, take a looked-at card, put one back, swap for a top / bottom
  row card, give a hand card to the swap, place, use a hand power, place on
  a stack whose top is face up / face down, expend, expend through a School,
  activate, Whitehall's target, keep face up with a Hospital, Coffee House
  from the top / bottom row, cut at the hand limit);
* ``1664 + V`` chance: the card drawn from the deck is version ``V``.
"""
from fagin.engines.room_data import data_path

cimport cython
from libc.stdint cimport int16_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset
from libc.math cimport exp

from fagin.engines.abi cimport GameDef, PLAYER_CHANCE, PLAYER_TERMINAL
from fagin.engines.room cimport (export_game_def, game_def, game_def_beliefs, game_def_knowledge, game_def_view_key,
                                 read_state)
from fagin.engines.rng cimport Rng, rng_below, rng_seed, mix64
from fagin.engines.cards cimport ms_draw_where
from fagin.engines.learned cimport learned_relative, learned_room
from fagin.engines.core import room_functions as _room_functions

cdef enum:
    LN_MAX_PLAYERS = 4
    # Places of the beliefs (ln_hidden_counts): seat p's hand is place p, then these.
    LN_DECK = LN_MAX_PLAYERS
    LN_TOP = LN_MAX_PLAYERS + 1
    LN_LOOK = LN_MAX_PLAYERS + 2
    LN_PLACES = LN_MAX_PLAYERS + 3
    MAX_V = 96                  # card versions the data may list (= MAX_PLACED: see _pack)
    MAX_K = 80                  # kinds of card
    NB = 20                     # boroughs
    MAX_PLACED = 96             # cards in one Building Display (the game has 95 with a stone base)
    ROW_CAP = 5                 # spaces in a Card Display row (4 players)
    LOOK_CAP = 3                # cards University of London shows
    HAND_LIMIT = 9
    ROUND_CAP = 100             # LN-97: the game ends after 100 rounds at the latest

    # Action ids.
    A_DECK = 0
    A_DONE = 1
    A_STOP = 2
    A_LOOK = 3
    A_NO_LOOK = 4
    A_NO_SWAP = 5
    A_PLAY_CARDS = 6
    A_RUN_CITY = 7
    A_BUY_LAND = 8
    A_TAKE_THREE = 9
    A_NEW_STACK = 10
    A_PLAYER = 12
    A_BUY = 16
    A_COUNTER = 40
    A_KINDS = 64
    A_CHANCE = 1664
    NUM_ACTIONS = A_CHANCE + MAX_V

    # Kind ranges: action id = A_KINDS + MAX_K * range + kind.
    R_TAKE_TOP = 0
    R_TAKE_BOTTOM = 1
    R_TAKE_LOOKED = 2
    R_PUT_BACK = 3
    R_SWAP_TOP = 4
    R_SWAP_BOTTOM = 5
    R_GIVE = 6
    R_PLACE = 7
    R_USE = 8
    R_ON_UP = 9
    R_ON_DOWN = 10
    R_EXPEND = 11
    R_SCHOOL = 12
    R_ACTIVATE = 13
    R_AGAIN = 14
    R_KEEP = 15
    R_COFFEE_TOP = 16
    R_COFFEE_BOTTOM = 17
    R_CUT = 18
    NUM_RANGES = 19

    # Phases.  PH_DEAL and PH_DRAW are chance nodes; PH_OVER is the end.
    PH_DEAL = 0             # the opening deal, one card at a time (LN-5)
    PH_DRAW = 1             # a card comes off the deck (LN-89)
    PH_LOOK = 2             # University: look or not (LN-50)
    PH_SOURCE = 3           # where the next card due comes from (LN-91)
    PH_TAKE_LOOKED = 4      # University: a looked-at card, a Display card, or stop
    PH_PUT_BACK = 5         # University: the order of the cards put back
    PH_SWAP = 6             # Stock Exchange: which Display card, or no swap (LN-51)
    PH_GIVE = 7             # Stock Exchange: which hand card goes to the Display
    PH_ACTION = 8           # one of the four actions (LN-18)
    PH_PLAY = 9             # Play Cards: a card, a hand power, or done (LN-26)
    PH_WHERE = 10           # Play Cards: new stack or on which stack (LN-29)
    PH_PAY = 11             # Play Cards: the card expended (LN-28)
    PH_RUN = 12             # Run City: a card to activate, or done (LN-36)
    PH_RUN_COST = 13        # Run City: the card expended for an activation (LN-37)
    PH_COFFEE = 14          # Coffee House: which Display card (LN-46)
    PH_TARGET = 15          # Fleet Street / Police Force: which player (LN-61, LN-62)
    PH_PRISON = 16          # a prison: a card to expend, or stop (LN-64)
    PH_WORKHOUSE = 17       # Workhouse: a Paupers to expend, or stop (LN-65)
    PH_WHITEHALL = 18       # Whitehall: which card again (LN-63)
    PH_UNDERGROUND = 19     # Underground: where the next counter goes (LN-66)
    PH_HOSPITAL = 20        # the flip step: a card a Hospital keeps, or stop (LN-43)
    PH_BUY = 21             # Buy Land: which borough (LN-71)
    PH_CUT = 22             # the hand limit: which card goes (LN-17)
    PH_OVER = 23
    NUM_PHASES = 24

    # Why cards are being taken (state.draw_for).
    DF_TURN = 0             # the turn's card (LN-13)
    DF_BOROUGH = 1          # Buy Land (LN-71)
    DF_THREE = 2            # Take Three Cards (LN-73)
    DF_HAND_POWER = 3       # Huguenots / Jewish Refugees (LN-33)

    # Where a deck draw goes (state.draw_to).
    DT_HAND = 0
    DT_LOOK = 1

    # The chosen action (state.action).
    ACT_NONE = 0
    ACT_PLAY = 1
    ACT_RUN = 2
    ACT_BUY = 3
    ACT_THREE = 4

    # Building Display card flags.
    F_DOWN = 1              # flipped face down
    F_COVERED = 2           # another card lies on it
    F_PLACED_NOW = 4        # placed this turn (LN-29)
    F_ACTIVATED = 8         # activated during this Run City (LN-36)
    F_KEPT = 16             # kept face up by a Hospital at this flip step (LN-43)

    # Colours.
    C_BLUE = 0
    C_BROWN = 1
    C_PINK = 2
    C_GREY = 3

    # Activation costs.
    AC_NONE = 0
    AC_ANY = 1
    AC_BLUE = 2
    AC_MONEY = 3

    # Which boroughs money_per_borough counts.
    BS_ALL = 0
    BS_THAMES = 1
    BS_NORTH = 2
    BS_SOUTH = 3

    # Permanent powers cached per seat (state.perm).
    P_SCHOOL = 0
    P_LOOK = 1
    P_SWAP = 2
    P_LOAN = 3
    P_PUB = 4
    P_DRAW_MAX = 5
    P_DRAW_MIN = 6
    NUM_P = 8

    # Events folded into the public hash.
    EV_POSITION = 1
    EV_ACTION = 2
    EV_DRAW = 3
    EV_SEAT = 4
    EV_LOOKED = 5
    EV_TOP = 6
    EV_SURE = 7


ctypedef struct LNState:
    uint64_t public_hash                        # what every seat has seen (LN-88)
    uint64_t hand_hash[LN_MAX_PLAYERS]          # a seat's own hand, by kind (kept incrementally)
    uint64_t sure_hash                          # what the University owner knows of others' hands
    int16_t players
    int16_t active                              # whose turn it is
    int16_t phase
    int16_t turns                               # turns completed
    int16_t money[LN_MAX_PLAYERS]
    int16_t loans[LN_MAX_PLAYERS]
    int16_t vp[LN_MAX_PLAYERS]                  # VP counters
    int16_t poverty[LN_MAX_PLAYERS]
    int16_t hand_n[LN_MAX_PLAYERS]
    int16_t hand[LN_MAX_PLAYERS][MAX_V]
    int16_t known[LN_MAX_PLAYERS][MAX_V]        # copies every seat is sure of (LN-84)
    int16_t owner_sure[LN_MAX_PLAYERS][MAX_V]   # copies the University owner is sure of (LN-85)
    int16_t uni_owner                           # seat that put cards back with University, or -1
    int16_t deck[MAX_V]                         # the unseen deck (below `top`)
    int16_t top_n
    int16_t top[LOOK_CAP]                       # put back by University; top[0] is drawn next
    int16_t look_n
    int16_t look[LOOK_CAP]                      # looked at, not yet taken or put back
    int16_t display_n[2]
    int16_t display[2][ROW_CAP]                 # rows 0 (top) and 1 (bottom), sorted
    int16_t discard[MAX_V]
    int16_t owner[NB]                           # building counter's seat, or -1
    int16_t underground[NB]
    int16_t underground_left                    # counters in the supply (LN-4)
    int16_t pc_n[LN_MAX_PLAYERS]
    int16_t stacks[LN_MAX_PLAYERS]
    int16_t pc_version[LN_MAX_PLAYERS][MAX_PLACED]
    int16_t pc_stack[LN_MAX_PLAYERS][MAX_PLACED]
    int16_t pc_flags[LN_MAX_PLAYERS][MAX_PLACED]
    int16_t pc_money[LN_MAX_PLAYERS][MAX_PLACED]   # on a Shops (LN-48)
    # The turn in progress.
    int16_t deal_left                           # cards of the opening deal still to deal
    int16_t draw_for                            # DF_*: why cards are being taken
    int16_t draw_to                             # DT_*: where a deck draw goes
    int16_t draws_left                          # cards still due
    int16_t draws_taken                         # cards taken in this draw
    int16_t draws_min                           # Parliament: stopping is allowed once this many are taken
    int16_t look_target                         # University: cards to look at in all
    int16_t action                              # ACT_*
    int16_t placed                              # placements in this Play Cards
    int16_t activations                         # activations in this Run City
    int16_t wren_waivers                        # placements left that need no expended card (LN-35)
    int16_t pending                             # the card being placed (version) / activated (pc index)
    int16_t pending_stack                       # where it goes: -1 new stack, else a pc index to cover
    int16_t effect_card                         # pc index whose effect is running (Whitehall's target)
    int16_t choices_left                        # prison cards / Underground counters still allowed
    int16_t swapped                             # the Stock Exchange swap taken this turn (LN-51)
    int16_t swap_row                            # the row of the Display card taken in a swap
    int16_t last_round                          # the deck's last card has been taken (LN-74)
    int16_t turns_left                          # turns still to play in the last round (-1: not counted yet)
    int16_t final_vp[LN_MAX_PLAYERS]            # at PH_OVER: LN-80
    int16_t final_poverty[LN_MAX_PLAYERS]       # at PH_OVER: poverty before the adjustment (LN-81)
    int16_t winners                             # at PH_OVER: bit per winning seat
    # Set only by apply_named, for one decision: the version + 1 that it moves instead of the
    # kind's lowest (LN-93, a client naming the exact card); 0 otherwise, and always in search.
    int16_t named
    # Caches the rules keep up to date; _pack recomputes them, so a description never sets them.
    int16_t deck_n                              # cards in `deck`
    int16_t letter_n[3]                         # cards of each letter in `deck`
    int16_t colour_n[16]                        # hand cards of seat p and colour c at [4 * p + c]
    int16_t perm[32]                            # seat p's permanent powers in force at [8 * p + P_*]
    # Always 0: the alignment before hand_mask, a field so that a state's bytes are its fields
    # (states compare and hash by their bytes; _pack's conversion leaves padding unset).
    int16_t align_hand_mask
    uint64_t hand_mask[8]                       # versions in seat p's hand: bits of [2 * p], [2 * p + 1]


# ------------------------------------------------------------ the rules, by concept
# Each file is included here, in this order, and compiled with the rest of the engine.

include "tables.pxi"
include "cards.pxi"
include "turn.pxi"
include "play_cards.pxi"
include "run_city.pxi"
include "legal.pxi"
include "apply.pxi"

# ------------------------------------------------------------------ the ABI

cdef int ln_legal_actions(const void* st, int* out) noexcept nogil:
    return legal(<const LNState*>st, out)

cdef void ln_apply_action(void* st, int action) noexcept nogil:
    # Decisions with a single legal action are taken at once (LN-90): nothing is asked.
    cdef LNState* s = <LNState*>st
    cdef int buf[2 * MAX_K + 8]
    apply_one(s, action)
    s.named = 0
    while s.phase != PH_OVER and s.phase != PH_DEAL and s.phase != PH_DRAW:
        if legal(s, buf) != 1:
            break
        apply_one(s, buf[0])

cdef int ln_num_players(const void* st) noexcept nogil:
    return (<const LNState*>st).players

cdef int ln_current_player(const void* st) noexcept nogil:
    cdef const LNState* s = <const LNState*>st
    if s.phase == PH_OVER:
        return PLAYER_TERMINAL
    if s.phase == PH_DEAL or s.phase == PH_DRAW:
        return PLAYER_CHANCE
    return s.active

cdef int ln_chance_outcomes(const void* st, int* actions, double* probs) noexcept nogil:
    return chance_list(<const LNState*>st, actions, probs)

cdef int ln_sample_chance(const void* st, Rng* rng) noexcept nogil:
    cdef const LNState* s = <const LNState*>st
    cdef int l = top_letter(s), v, total = s.letter_n[l] if l < 3 else 0, x
    x = <int>rng_below(rng, total)
    for v in range(NV):
        if CARD_LETTER[v] == l:
            x -= s.deck[v]
            if x < 0:
                return A_CHANCE + v
    return A_CHANCE

cdef void ln_returns(const void* st, double* out) noexcept nogil:
    cdef const LNState* s = <const LNState*>st
    cdef int p
    for p in range(s.players):
        out[p] = 1.0 if (s.winners >> p) & 1 else 0.0      # LN-81

cdef uint64_t sure_hash_of(const LNState* s) noexcept nogil:
    cdef uint64_t h = 0
    cdef int p, v
    for p in range(s.players):
        for v in range(NV):
            h += <uint64_t>s.owner_sure[p][v] * Z_KIND[p][CARD_KIND[v]]
    return h

cdef uint64_t hand_hash_of(const LNState* s, int p) noexcept nogil:
    cdef uint64_t h = 0
    cdef int v
    for v in range(NV):
        h += <uint64_t>s.hand[p][v] * Z_KIND[p][CARD_KIND[v]]
    return h

cdef void ln_determinize(void* st, int observer, Rng* rng) noexcept nogil:
    """See redeal.  When observer is not the seat to act, a world where that seat could not act
    (it is paying for a placement with a colour its sampled hand lacks, say) is inconsistent
    with what observer saw, so it is drawn again (up to 32 times; the given world is kept if
    none fits, which needs a hand that almost never admits the action)."""
    cdef LNState* s = <LNState*>st
    cdef LNState saved
    cdef int buf[MAX_PLACED + 4]
    cdef int tries
    if observer == s.active or s.phase == PH_DEAL or s.phase == PH_DRAW or s.phase == PH_OVER:
        redeal(s, observer, rng)
        return
    memcpy(&saved, s, sizeof(LNState))
    for tries in range(32):
        redeal(s, observer, rng)
        if legal(s, buf) > 0 and (s.phase != PH_WHERE or pending_payable(s)):
            return
        memcpy(s, &saved, sizeof(LNState))

cdef bint pending_payable(const LNState* s) noexcept nogil:
    """The card being placed (already out of the hand) can still be paid for (LN-28)."""
    cdef int p = s.active, v = s.pending
    return CARD_PLACED_WITHOUT_EXPENDING[v] or s.wren_waivers > 0 or hand_colour(s, p, CARD_COLOUR[v]) >= 1 \
        or (s.perm[8 * p + P_SCHOOL] > 0 and s.hand_n[p] >= 1)

cdef void redeal(LNState* s, int observer, Rng* rng) noexcept nogil:
    """Re-deals the cards `observer` has not seen, each hidden place keeping its letter
    (LN-85 to LN-87): other hands beyond what observer is sure of, the cards put back by
    University (unless observer put them there), the cards another seat is looking at, and
    the deck (what is left)."""
    cdef int16_t unseen[MAX_V]
    cdef int16_t hidden[LN_MAX_PLAYERS][MAX_V]
    cdef int p, v, i, c, n, d
    cdef bint owner = observer == s.uni_owner
    for v in range(NV):
        unseen[v] = s.deck[v]
    if not owner:
        for i in range(s.top_n):
            unseen[s.top[i]] += 1
    if s.look_n > 0 and s.active != observer:
        for i in range(s.look_n):
            unseen[s.look[i]] += 1
    for p in range(s.players):
        for v in range(NV):
            hidden[p][v] = 0
        if p == observer:
            continue
        for v in range(NV):
            c = s.hand[p][v] - (s.owner_sure[p][v] if owner else s.known[p][v])
            if c > 0:
                hidden[p][v] = c
                unseen[v] += c
    cdef int by_letter[3]
    for p in range(s.players):
        if p == observer:
            continue
        by_letter[0] = by_letter[1] = by_letter[2] = 0
        for v in range(NV):
            s.hand[p][v] -= hidden[p][v]
            by_letter[CARD_LETTER[v]] += hidden[p][v]
        # Letter by letter, so that positions differing only in what observer cannot see
        # draw the same random numbers in the same order and get the same worlds.
        for c in range(3):
            for n in range(by_letter[c]):
                d = ms_draw_where(unseen, NV, LETTER_ALLOWED[c], rng)
                s.hand[p][d] += 1
        if not owner:
            # Which of p's cards the University owner knows is hidden from observer: in the
            # sampled world the owner knows what everyone knows.
            for v in range(NV):
                s.owner_sure[p][v] = s.known[p][v]
        s.hand_hash[p] = hand_hash_of(s, p)
    if not owner:
        for i in range(s.top_n):
            s.top[i] = ms_draw_where(unseen, NV, LETTER_ALLOWED[CARD_LETTER[s.top[i]]], rng)
    if s.look_n > 0 and s.active != observer:
        for i in range(s.look_n):
            s.look[i] = ms_draw_where(unseen, NV, LETTER_ALLOWED[CARD_LETTER[s.look[i]]], rng)
    for v in range(NV):
        s.deck[v] = unseen[v]
    s.sure_hash = sure_hash_of(s)
    refresh_caches(s)

cdef uint64_t ln_infoset_key(const void* st, int player) noexcept nogil:
    """Public history, the seat's own hand, and what it alone knows (LN-88)."""
    cdef const LNState* s = <const LNState*>st
    cdef uint64_t h = mix64(mix64(s.public_hash, s.hand_hash[player]), <uint64_t>(EV_SEAT * 256 + player))
    cdef uint64_t look = 0
    cdef int i
    if player == s.uni_owner:
        h = mix64(h, s.sure_hash)
        for i in range(s.top_n):
            h = mix64(h, <uint64_t>(EV_TOP * 256 + CARD_KIND[s.top[i]]))
    if player == s.active and s.look_n > 0:
        for i in range(s.look_n):
            look += Z_KIND[player][CARD_KIND[s.look[i]]] * <uint64_t>0x9E3779B97F4A7C15
        h = mix64(h, look)
    return h

cdef enum:
    # Sections of a view's key (ln_view_key), so that no two views hash one sequence.
    VK_SEAT = 11
    VK_HAND = 12
    VK_KNOWN = 13
    VK_SURE = 14
    VK_STACK = 15
    VK_ROWS = 16
    VK_DISCARD = 17
    VK_DECK = 18
    VK_UNSEEN = 19
    VK_TURN = 20
    VK_OVER = 21


cdef inline uint64_t fold_counts(uint64_t h, uint64_t section, const int16_t* counts) noexcept nogil:
    """``h`` with the cards of a count vector (by version; a negative count is none, as the
    view lists it) folded in, and the section closed."""
    cdef int v
    h = mix64(h, section)
    for v in range(NV):
        if counts[v] > 0:
            h = mix64(h, <uint64_t>(v * 65536 + counts[v]))
    return mix64(h, section + 1000)


cdef inline uint64_t stack_of(const LNState* s, int i) noexcept nogil:
    """The active seat's stack holding its placed card ``i`` + 1, or 0 if there is none (the
    view's ``stack_of``)."""
    if 0 <= i < s.pc_n[s.active]:
        return <uint64_t>(s.pc_stack[s.active][i] + 1)
    return 0


cdef uint64_t ln_view_key(const void* st, int seat) noexcept nogil:
    """The key of ``seat``'s view (state.py's ``view``, LN-82 to LN-88): every field the view
    shows, as it shows it, and nothing it leaves out.  The infoset key names cards by kind
    (LN-93); the view by version, so this key tells apart the copies of identical cards.
    Fields the view shows only in some phases are read only in those, and lists the view
    groups (a seat's stacks) are folded as grouped, so that equal views give equal keys."""
    cdef const LNState* s = <const LNState*>st
    cdef int p, v, i, k, b
    cdef bint owner = seat == s.uni_owner
    cdef int16_t sure[MAX_V]
    cdef int16_t unseen[MAX_V]
    cdef int letters[3]
    cdef uint64_t h = mix64(<uint64_t>VK_SEAT, <uint64_t>(s.players * 64 + s.phase))
    h = mix64(h, <uint64_t>(s.active * 65536 + s.turns))
    for v in range(NV):
        unseen[v] = s.deck[v]
    for p in range(s.players):
        h = mix64(h, <uint64_t>(s.money[p] * 65536 + s.loans[p]))
        h = mix64(h, <uint64_t>(s.vp[p] * 65536 + s.poverty[p]))
        h = mix64(h, <uint64_t>s.hand_n[p])
        h = fold_counts(h, VK_KNOWN, s.known[p])
        letters[0] = letters[1] = letters[2] = 0
        if p == seat:
            h = fold_counts(h, VK_HAND, s.hand[p])
        else:
            for v in range(NV):
                sure[v] = s.owner_sure[p][v] if owner else s.known[p][v]
                if s.hand[p][v] > sure[v]:
                    letters[CARD_LETTER[v]] += s.hand[p][v] - sure[v]
                    unseen[v] += s.hand[p][v] - sure[v]
            h = fold_counts(h, VK_HAND, sure)
        h = mix64(h, <uint64_t>(letters[0] + 256 * letters[1] + 65536 * letters[2]))
        if p == seat or owner:
            for v in range(NV):
                sure[v] = s.owner_sure[p][v] - s.known[p][v]
            h = fold_counts(h, VK_SURE, sure)
        # The Building Display stack by stack, each from its bottom.
        h = mix64(h, <uint64_t>(VK_STACK * 65536 + s.stacks[p]))
        for k in range(s.stacks[p]):
            h = mix64(h, <uint64_t>(VK_STACK * 65536 + 256 + k))
            for i in range(s.pc_n[p]):
                if s.pc_stack[p][i] == k:
                    h = mix64(h, <uint64_t>(s.pc_version[p][i]
                                            + 256 * (s.pc_flags[p][i] & (F_DOWN | F_PLACED_NOW | F_ACTIVATED | F_KEPT))
                                            + 65536 * <uint16_t>s.pc_money[p][i]))
    for b in range(NB):
        h = mix64(h, <uint64_t>((s.owner[b] + 1) * 4 + s.underground[b] + 64 * b))
    h = mix64(h, <uint64_t>(VK_ROWS * 65536 + s.display_n[0] * 16 + s.display_n[1]))
    for i in range(2):
        for k in range(s.display_n[i]):
            h = mix64(h, <uint64_t>(i * 256 + s.display[i][k]))
    h = fold_counts(h, VK_DISCARD, s.discard)
    letters[0] = letters[1] = letters[2] = 0
    for v in range(NV):
        if s.deck[v] > 0:
            letters[CARD_LETTER[v]] += s.deck[v]
    h = mix64(h, <uint64_t>(VK_DECK * 16777216 + letters[0] + 256 * letters[1] + 65536 * letters[2]))
    h = mix64(h, <uint64_t>(s.top_n * 16 + s.look_n))
    for i in range(s.top_n):
        h = mix64(h, <uint64_t>(EV_TOP * 256 + (s.top[i] if owner else 128 + CARD_LETTER[s.top[i]])))
        if not owner:
            unseen[s.top[i]] += 1
    for i in range(s.look_n):
        h = mix64(h, <uint64_t>(EV_LOOKED * 256 + (s.look[i] if seat == s.active else 128 + CARD_LETTER[s.look[i]])))
        if seat != s.active:
            unseen[s.look[i]] += 1
    h = fold_counts(h, VK_UNSEEN, unseen)
    # The turn in progress, a field at a time (no packing to trust the ranges of).
    h = mix64(h, <uint64_t>VK_TURN)
    cdef int turn[18]
    turn[0], turn[1], turn[2], turn[3], turn[4], turn[5] = s.underground_left, s.uni_owner, s.deal_left, \
        s.draw_for, s.draw_to, s.draws_left
    turn[6], turn[7], turn[8], turn[9], turn[10], turn[11] = s.draws_taken, s.draws_min, s.look_target, \
        s.action, s.placed, s.activations
    turn[12], turn[13], turn[14], turn[15], turn[16], turn[17] = s.wren_waivers, s.choices_left, \
        s.swapped != 0, s.swap_row, s.last_round != 0, s.turns_left
    for k in range(18):
        h = mix64(h, <uint64_t>(<uint16_t>turn[k]))
    if s.phase == PH_WHERE or s.phase == PH_PAY:
        h = mix64(h, <uint64_t>(VK_TURN * 65536 + 1024 + s.pending))
    if s.phase == PH_PAY:
        h = mix64(h, <uint64_t>(VK_TURN * 65536 + 2048) + stack_of(s, s.pending_stack))
    if PH_RUN_COST <= s.phase <= PH_UNDERGROUND:
        h = mix64(h, <uint64_t>(VK_TURN * 65536 + 4096) + stack_of(s, s.pending))
    if PH_COFFEE <= s.phase <= PH_UNDERGROUND:
        h = mix64(h, <uint64_t>(VK_TURN * 65536 + 8192) + stack_of(s, s.effect_card))
    if s.phase == PH_OVER:
        for p in range(s.players):
            h = mix64(h, <uint64_t>(VK_OVER * 16777216 + <uint16_t>s.final_vp[p] * 256 + s.final_poverty[p]))
        h = mix64(h, <uint64_t>(VK_OVER * 16777216 + 8388608 + s.winners))
    return h


cdef int ln_make_current(void* st, int seat) noexcept nogil:
    return 1 if ln_current_player(st) == seat else 0

# The room's table (engines/abi.pxd), filled by the room kit's helpers (engines/room.pxd)
# here and beside the other functions they put in it, and exported as GAME_DEF.
cdef GameDef LN_DEF
# A decision lists at most 1 + the stacks of a display (96), or the kinds in a hand, or 12
# sources; a chance node at most the 76 versions.  The game's length is a practical bound, as
# for Gangs of Kyoto: 100 rounds (LN-97) of 4 turns average well under 50 actions a turn; the
# search only uses it to size its in-tree path.
game_def(&LN_DEF, b"london", sizeof(LNState), LN_MAX_PLAYERS, NUM_ACTIONS, MAX_PLACED + 4, MAX_PLACED + 4, 20000,
         ln_num_players, ln_current_player, ln_legal_actions, ln_apply_action, ln_chance_outcomes, ln_sample_chance,
         ln_returns, ln_determinize, ln_infoset_key, ln_make_current)

include "rollout.pxi"
include "evaluation.pxi"

# The learned evaluation (GameDef.evaluate_learned): a logistic regression on the features
# above, one per player count, and the expected final margin (GameDef.margins_learned): a linear
# one on the same features, both fitted by python -m fagin.train and shipped as data
# (data/learned.json); loaded once at import into the shared kit's model (engines/learned.pxd).

# LEARNED: the model document loaded (data/learned.json), or None.
_load_learned = learned_room(&LN_DEF, globals(), data_path(__file__, "learned.json"), FEATURE_NAMES, "London")

cdef int ln_heuristic_action(const void* st, Rng* rng) noexcept nogil:
    return heuristic_choice(<const LNState*>st, rng)

game_def_view_key(&LN_DEF, ln_view_key)
game_def_knowledge(&LN_DEF, ln_rollout_action, ln_heuristic_action, ln_evaluate, EVAL_DEPTH, ln_scores, ln_features,
                   LN_FEATURES)
GAME_DEF = export_game_def(&LN_DEF)

# ------------------------------------------------------- the Python side's access to states

cdef void position_hash(LNState* s) noexcept nogil:
    """A position set up from a description starts a fresh public history from everything
    public in it (LN-88)."""
    cdef uint64_t h = mix64(<uint64_t>EV_POSITION, <uint64_t>(s.players * 64 + s.active))
    cdef int p, v, i, b
    cdef int hidden_letters[3]
    h = mix64(h, <uint64_t>(s.phase * 65536 + s.turns))
    for p in range(s.players):
        h = mix64(h, <uint64_t>(s.money[p] * 65536 + s.loans[p]))
        h = mix64(h, <uint64_t>(s.vp[p] * 65536 + s.poverty[p]))
        h = mix64(h, <uint64_t>(s.hand_n[p] * 65536 + s.pc_n[p] * 256 + s.stacks[p]))
        for v in range(NV):
            if s.known[p][v]:
                h = mix64(h, <uint64_t>(p * 1000000 + v * 100 + s.known[p][v]))
        hidden_letters[0] = 0
        hidden_letters[1] = 0
        hidden_letters[2] = 0
        for v in range(NV):
            hidden_letters[CARD_LETTER[v]] += s.hand[p][v] - s.known[p][v]
        for i in range(3):
            # Letters of the hidden hand cards are public (LN-86); their versions are not.
            h = mix64(h, <uint64_t>(p * 1000000 + 500000 + i * 1000 + hidden_letters[i]))
        for i in range(s.pc_n[p]):
            h = mix64(h, <uint64_t>(s.pc_version[p][i] + 256 * s.pc_stack[p][i] + 65536 * s.pc_flags[p][i]
                                    + 16777216 * s.pc_money[p][i]))
    for v in range(NV):
        h = mix64(h, <uint64_t>(s.discard[v] * 256 + v))
    for i in range(2):
        for b in range(s.display_n[i]):
            h = mix64(h, <uint64_t>(i * 256 + s.display[i][b]))
    for b in range(NB):
        h = mix64(h, <uint64_t>((s.owner[b] + 1) * 4 + s.underground[b] + 64 * b))
    h = mix64(h, <uint64_t>(deck_cards(s) * 256 + s.top_n * 16 + s.look_n + 65536 * s.uni_owner))
    for i in range(s.top_n):
        h = mix64(h, <uint64_t>(EV_TOP * 256 + CARD_LETTER[s.top[i]]))
    for i in range(s.look_n):
        h = mix64(h, <uint64_t>(EV_LOOKED * 256 + CARD_LETTER[s.look[i]]))
    h = mix64(h, <uint64_t>(s.draw_for + 8 * s.draw_to + 64 * s.draws_left + 1024 * s.draws_taken
                            + 16384 * s.draws_min))
    h = mix64(h, <uint64_t>(s.action + 8 * s.placed + 1024 * s.activations + 65536 * s.wren_waivers))
    h = mix64(h, <uint64_t>((s.pending + 1) + 256 * (s.pending_stack + 1) + 65536 * (s.effect_card + 1)))
    h = mix64(h, <uint64_t>(s.choices_left + 16 * s.swapped + 64 * (s.swap_row + 1) + 256 * s.last_round
                            + 1024 * (s.turns_left + 1) + 65536 * s.deal_left + 16777216 * s.look_target))
    s.public_hash = h
    for p in range(s.players):
        s.hand_hash[p] = hand_hash_of(s, p)
    s.sure_hash = sure_hash_of(s)


cdef LNState _read(data) except *:
    cdef LNState s
    read_state(data, &s, sizeof(LNState), "not a London state")
    return s


def _raw(data):
    """The state's fields as a dict of ints and lists (the struct ``LNState``), for the Python side."""
    cdef LNState s = _read(data)
    return s


def _pack(raw):
    """State bytes from a dict shaped like :func:`_raw`'s, its hashes computed afresh.

    No rule is checked here: callers (``state.from_description``) validate every field first,
    since the nogil rules trust the state they are given.  (Every 2-D array of the struct
    has the same inner size, MAX_V = MAX_PLACED: Cython 3.0 reuses one temporary for the
    dict-to-array conversions of one base type, and arrays of different sizes overflowed it.)
    """
    cdef LNState s = raw
    refresh_caches(&s)
    if s.phase == PH_OVER:
        game_over(&s)                       # the final scores follow from the position, never from the client
    position_hash(&s)
    return (<char*>&s)[:sizeof(LNState)]


def initial_state_bytes(int players):
    """A new game before the opening deal (LN-5): £5 and 5 poverty each, A over B over C."""
    if not 2 <= players <= LN_MAX_PLAYERS:
        raise ValueError(f"players: London takes 2 to 4 players, not {players}")
    cdef LNState s
    cdef int v, p
    memset(&s, 0, sizeof(LNState))
    s.players = players
    for p in range(players):
        s.money[p] = 5
        s.poverty[p] = 5
    for v in range(NV):
        s.deck[v] = CARD_COPIES[v]
    for v in range(NB):
        s.owner[v] = -1
    s.uni_owner = -1
    s.underground_left = UNDERGROUND_COUNTERS
    s.pending = -1
    s.pending_stack = -1
    s.effect_card = -1
    s.swap_row = -1
    s.turns_left = -1
    s.deal_left = 6 * players
    s.phase = PH_DEAL
    refresh_caches(&s)
    position_hash(&s)
    return (<char*>&s)[:sizeof(LNState)]


def has_legal_action(data):
    """Whether the active seat of packed state bytes has a legal action (the decoder's last
    check; read from the bytes, not through :func:`_raw`'s dict, which costs ~40 us more)."""
    cdef int buf[2 * MAX_K + 8]
    cdef LNState s = _read(data)
    return legal(&s, buf) > 0


def kind_action(str range_name, int kind):
    """The action id of ``range_name`` (one of :data:`RANGES`) for a kind index."""
    if not 0 <= kind < N_KINDS:
        raise ValueError(f"kind: {kind} is not a kind of card (0..{N_KINDS - 1})")
    return A_KINDS + MAX_K * RANGES.index(range_name) + kind


def moved_version(data, int action, int named=-1):
    """The card version that ``action`` moves (or, for a card in play, marks) in the state
    ``data``: the lowest of its kind there (LN-93), or ``named`` where that copy is there;
    -1 for an id that names no card."""
    cdef LNState s = _read(data)
    if not -1 <= named < NV:
        raise ValueError(f"named: {named} is not a card version")
    s.named = named + 1
    return moved_card(&s, action)


def apply_named(data, int action, int named):
    """``data`` with the legal decision ``action`` applied, moving the copy ``named`` of its kind
    instead of the lowest (LN-93; -1: the lowest): for a client that says which of identical
    cards it played.
    The caller checks legality and that ``moved_version(data, action, named) == named``."""
    cdef LNState s = _read(data)
    if not -1 <= named < NV:
        raise ValueError(f"named: {named} is not a card version")
    s.named = named + 1
    ln_apply_action(&s, action)
    return (<char*>&s)[:sizeof(LNState)]


def split_action(int action):
    """``(range name, kind)`` of a kind action, or ``None`` for other ids."""
    if A_KINDS <= action < A_KINDS + MAX_K * NUM_RANGES:
        r, k = divmod(action - A_KINDS, MAX_K)
        return RANGES[r], k
    return None


# The heuristic, the evaluations and the features on state bytes (fagin.engines.core.room_functions).
heuristic_action, evaluation, features, learned_evaluation = _room_functions(GAME_DEF)


def final_scoring(data):
    """Each seat's scoring by category as the end of the game scores this position
    (``score_seats``, LN-75 to LN-80): a dict per seat, seat 0 first, with the keys of
    ``LNScore`` (the poverty penalty read from the table, LN-79)."""
    cdef LNState s = _read(data)
    cdef LNScore sc[LN_MAX_PLAYERS]
    score_seats(&s, sc)
    return [dict(sc[p]) for p in range(s.players)]


def final_ranking(data):
    """How LN-81 ranked the seats at the end (``rank_key``, game_over's own comparison):
    ``winners``, the seats sharing the win (the state's, which game_over set), and ``key``,
    the key by which the winners rank above the best of the others (1: final VP, 2: fewer
    poverty, 3: more boroughs, 4: the best card; None when every seat shares the win), and
    ``runner_up``, that best of the others (None when every seat shares the win)."""
    cdef LNState s = _read(data)
    cdef LNScore sc[LN_MAX_PLAYERS]
    cdef int p, runner = -1, first = -1
    score_seats(&s, sc)
    winners = [p for p in range(s.players) if (s.winners >> p) & 1]
    for p in range(s.players):
        if (s.winners >> p) & 1:
            if first < 0:
                first = p
        elif runner < 0 or rank_key(&sc[p], &sc[runner]) > 0:
            runner = p
    key = rank_key(&sc[first], &sc[runner]) if first >= 0 and runner >= 0 else 0
    return {"winners": winners, "key": key if key > 0 else None,
            "runner_up": runner if runner >= 0 else None}


def belief_layout(data, int seat):
    """What ln_hidden_counts counts for ``seat`` (LN-99): the places, as (name, owner seat
    or None), and the items (card names by version, None past the data's versions)."""
    places = [(f"seat {p}'s hand", p) for p in range(LN_MAX_PLAYERS)]
    places += [("the deck", None), ("put back on the deck (University of London)", None),
               ("being looked at (University of London)", None)]
    return places, [CARDS[v].name if v < NV else None for v in range(MAX_V)]


def poverty_penalty_of(int points):
    """VP lost with this many poverty points above the lowest (LN-11, LN-79)."""
    if points < 0:
        raise ValueError("points: expected >= 0")
    return poverty_penalty(points)


# ------------------------------------------------------------------ the Python side (state.py)
# Imported last: state.py reads this module's tables at call time.  Actions are named and typed
# in actions.py, which reads this module (fagin.engines.core.Game imports it).
from fagin.engines.london.state import describe, view, from_description, render, summary
