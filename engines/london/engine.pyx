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
from libc.stdint cimport int16_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset
from libc.math cimport exp

from fagin.engines.abi cimport GameDef, PLAYER_CHANCE, PLAYER_TERMINAL
from fagin.engines.room cimport export_game_def, game_def, game_def_beliefs, game_def_knowledge, read_state
from fagin.engines.rng cimport Rng, rng_below, rng_seed, mix64
from fagin.engines.cards cimport ms_draw_where
from fagin.engines.learned cimport (LearnedRoom, learned_relative, learned_room, learned_room_evaluate,
                                    learned_room_margins)
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
    uint64_t hand_mask[8]                       # versions in seat p's hand: bits of [2 * p], [2 * p + 1]


# ------------------------------------------------------------ the card and board tables
# Filled from the data files by _load() when the module is imported.

cdef int NV = 0                     # card versions
cdef int N_KINDS = 0                     # kinds
cdef int V_KIND[MAX_V]
cdef int V_LETTER[MAX_V]            # 0 A, 1 B, 2 C
cdef int V_COLOUR[MAX_V]
cdef int V_COPIES[MAX_V]
cdef int V_COST[MAX_V]              # play cost in £
cdef int V_VP[MAX_V]
cdef int V_BASE[MAX_V]              # stone base: may be placed (LN-27)
# Powers from the hand or in force while face up and uncovered.
cdef int V_NO_EXPEND[MAX_V]         # placed without expending a card (Coffee House)
cdef int V_SCHOOL[MAX_V]            # £ to expend any colour (School, LN-47)
cdef int V_LOOK[MAX_V]              # cards University of London shows (LN-50)
cdef int V_SWAP[MAX_V]              # Stock Exchange (LN-51)
cdef int V_LOAN[MAX_V]              # what a loan gives (Bank of England, LN-24)
cdef int V_STORE[MAX_V]             # £ a Shops stores per placement (LN-48)
cdef int V_PUB[MAX_V]               # hand not counted in Run City poverty (LN-52)
cdef int V_DRAW_MIN[MAX_V]          # Parliament: cards at the turn's start (LN-49); max 0 = no power
cdef int V_DRAW_MAX[MAX_V]
cdef int V_HAND_DRAW[MAX_V]         # Huguenots / Jewish Refugees: cards taken (LN-33)
cdef int V_WREN[MAX_V]              # Wren: placements without expending (LN-35)
# The activation (LN-36 to LN-39, LN-45 to LN-66).
cdef int V_ACT[MAX_V]               # has an activation
cdef int V_ACT_COST[MAX_V]          # AC_*
cdef int V_ACT_MONEY[MAX_V]         # £ for AC_MONEY
cdef int V_FLIP[MAX_V]
cdef int V_GAIN_MONEY[MAX_V]
cdef int V_GAIN_VP[MAX_V]
cdef int V_DISCARD_POVERTY[MAX_V]
cdef int V_TAKE_POVERTY[MAX_V]
cdef int V_PER_BOROUGH[MAX_V]       # £ per occupied borough of the set V_BOROUGH_SET
cdef int V_BOROUGH_SET[MAX_V]
cdef int V_MONEY_PER_CARD[MAX_V]    # £ per card of V_MONEY_COLOURS in the display
cdef int V_MONEY_COLOURS[MAX_V]     # colour bit mask
cdef int V_MONEY_COVERED[MAX_V]     # covered cards count
cdef int V_MONEY_FLIPPED[MAX_V]     # flipped cards count
cdef int V_VP_PER_CARD[MAX_V]
cdef int V_VP_COLOURS[MAX_V]
cdef int V_VP_COVERED[MAX_V]
cdef int V_VP_FLIPPED[MAX_V]
cdef int V_COLLECT[MAX_V]           # takes the money stored on it (Shops)
cdef int V_OTHERS_PAY[MAX_V]        # £ every other player pays (Lloyds of London)
cdef int V_FIRE[MAX_V]              # £ per borough every other player pays the bank (Fire Brigade)
cdef int V_GIVE_POVERTY[MAX_V]      # poverty moved to a chosen player (Police Force)
cdef int V_OPPONENT_POVERTY[MAX_V]  # poverty a chosen player takes (Fleet Street)
cdef int V_PRISON[MAX_V]            # cards a prison may take
cdef int V_PRISON_POVERTY[MAX_V]
cdef int V_PRISON_VP[MAX_V]
cdef int V_WORKHOUSE[MAX_V]
cdef int V_PAUPER_MONEY[MAX_V]
cdef int V_PAUPER_POVERTY[MAX_V]
cdef int V_UNDERGROUND[MAX_V]       # counters placed
cdef int V_WHITEHALL[MAX_V]
cdef int V_HOSPITAL[MAX_V]
cdef int V_COFFEE[MAX_V]            # places a Display card on itself
cdef int V_PAUPER[MAX_V]            # a Paupers card (grey)
cdef int K_FIRST[MAX_K]             # lowest version of each kind

cdef int B_COST[NB]
cdef int B_CARDS[NB]
cdef int B_VP[NB]
cdef int B_NORTH[NB]
cdef int B_THAMES[NB]
cdef int B_START[NB]
cdef uint32_t B_ADJ[NB]             # neighbours (bit mask)
cdef uint32_t B_CROSS[NB]           # neighbours across the Thames (bridges)
cdef int FIRST_UNDERGROUND = 0      # the borough the first Underground counter is in or next to
cdef int UNDERGROUND_CROSSING = 3
cdef int UNDERGROUND_VP = 2
cdef int UNDERGROUND_COUNTERS = 10
cdef int BUILDING_COUNTERS = 11
cdef int POVERTY_TABLE[64]          # VP lost for remaining poverty; beyond the table: POVERTY_BEYOND each
cdef int POVERTY_TABLE_N = 0
cdef int POVERTY_BEYOND = 3
cdef uint64_t Z_KIND[LN_MAX_PLAYERS][MAX_K]     # per-seat hash of one card of a kind in the hand

COLOURS = ("blue", "brown", "pink", "grey")
LETTERS = ("A", "B", "C")
PHASES = ("deal", "draw", "look", "source", "take_looked", "put_back", "swap", "give", "action", "play",
          "where", "pay", "run", "run_cost", "coffee", "target", "prison", "workhouse", "whitehall",
          "underground", "hospital", "buy", "cut", "over")
DRAW_FOR = ("turn", "borough", "take_three", "hand_power")
DRAW_TO = ("hand", "look")
ACTIONS = ("none", "play_cards", "run_city", "buy_land", "take_three")
RANGES = ("take_top", "take_bottom", "take_looked", "put_back", "swap_top", "swap_bottom", "give", "place",
          "use", "on_stack_up", "on_stack_down", "expend", "school_expend", "activate", "again", "keep",
          "coffee_top", "coffee_bottom", "cut")
FLAGS = {"down": F_DOWN, "covered": F_COVERED, "placed_this_turn": F_PLACED_NOW, "activated": F_ACTIVATED,
         "kept": F_KEPT}
assert len(PHASES) == NUM_PHASES and len(RANGES) == NUM_RANGES

ACTION_DECK = A_DECK
ACTION_DONE = A_DONE
ACTION_STOP = A_STOP
ACTION_LOOK = A_LOOK
ACTION_NO_LOOK = A_NO_LOOK
ACTION_NO_SWAP = A_NO_SWAP
ACTION_PLAY_CARDS = A_PLAY_CARDS
ACTION_RUN_CITY = A_RUN_CITY
ACTION_BUY_LAND = A_BUY_LAND
ACTION_TAKE_THREE = A_TAKE_THREE
ACTION_NEW_STACK = A_NEW_STACK
ACTION_PLAYER = A_PLAYER
ACTION_BUY = A_BUY
ACTION_COUNTER = A_COUNTER
ACTION_KINDS = A_KINDS
ACTION_CHANCE = A_CHANCE
KIND_RANGE = MAX_K
NUM_DISTINCT_ACTIONS = NUM_ACTIONS
HAND_LIMIT_CARDS = HAND_LIMIT
ROUNDS_CAP = ROUND_CAP
MAX_PLAYERS_STATE = LN_MAX_PLAYERS
MAX_PLACED_CARDS = MAX_PLACED
ROW_SPACES = ROW_CAP

from fagin.engines.london import components as _components

CARDS = ()          # components.Card per version (index = version)
VERSIONS = ()       # card id per version
KIND_OF = ()        # kind per version
KINDS = ()          # versions of each kind, ascending
BOROUGHS = ()       # components.Borough per borough index
BOROUGH_IDS = ()
VERSION_INDEX = {}  # card id -> version
BOROUGH_INDEX = {}  # borough id -> index


cdef void _clear_tables() noexcept:
    memset(V_KIND, 0, sizeof(V_KIND))
    memset(V_LETTER, 0, sizeof(V_LETTER))
    memset(V_COLOUR, 0, sizeof(V_COLOUR))
    memset(V_COPIES, 0, sizeof(V_COPIES))
    memset(V_COST, 0, sizeof(V_COST))
    memset(V_VP, 0, sizeof(V_VP))
    memset(V_BASE, 0, sizeof(V_BASE))
    memset(V_NO_EXPEND, 0, sizeof(V_NO_EXPEND))
    memset(V_SCHOOL, 0, sizeof(V_SCHOOL))
    memset(V_LOOK, 0, sizeof(V_LOOK))
    memset(V_SWAP, 0, sizeof(V_SWAP))
    memset(V_LOAN, 0, sizeof(V_LOAN))
    memset(V_STORE, 0, sizeof(V_STORE))
    memset(V_PUB, 0, sizeof(V_PUB))
    memset(V_DRAW_MIN, 0, sizeof(V_DRAW_MIN))
    memset(V_DRAW_MAX, 0, sizeof(V_DRAW_MAX))
    memset(V_HAND_DRAW, 0, sizeof(V_HAND_DRAW))
    memset(V_WREN, 0, sizeof(V_WREN))
    memset(V_ACT, 0, sizeof(V_ACT))
    memset(V_ACT_COST, 0, sizeof(V_ACT_COST))
    memset(V_ACT_MONEY, 0, sizeof(V_ACT_MONEY))
    memset(V_FLIP, 0, sizeof(V_FLIP))
    memset(V_GAIN_MONEY, 0, sizeof(V_GAIN_MONEY))
    memset(V_GAIN_VP, 0, sizeof(V_GAIN_VP))
    memset(V_DISCARD_POVERTY, 0, sizeof(V_DISCARD_POVERTY))
    memset(V_TAKE_POVERTY, 0, sizeof(V_TAKE_POVERTY))
    memset(V_PER_BOROUGH, 0, sizeof(V_PER_BOROUGH))
    memset(V_BOROUGH_SET, 0, sizeof(V_BOROUGH_SET))
    memset(V_MONEY_PER_CARD, 0, sizeof(V_MONEY_PER_CARD))
    memset(V_MONEY_COLOURS, 0, sizeof(V_MONEY_COLOURS))
    memset(V_MONEY_COVERED, 0, sizeof(V_MONEY_COVERED))
    memset(V_MONEY_FLIPPED, 0, sizeof(V_MONEY_FLIPPED))
    memset(V_VP_PER_CARD, 0, sizeof(V_VP_PER_CARD))
    memset(V_VP_COLOURS, 0, sizeof(V_VP_COLOURS))
    memset(V_VP_COVERED, 0, sizeof(V_VP_COVERED))
    memset(V_VP_FLIPPED, 0, sizeof(V_VP_FLIPPED))
    memset(V_COLLECT, 0, sizeof(V_COLLECT))
    memset(V_OTHERS_PAY, 0, sizeof(V_OTHERS_PAY))
    memset(V_FIRE, 0, sizeof(V_FIRE))
    memset(V_GIVE_POVERTY, 0, sizeof(V_GIVE_POVERTY))
    memset(V_OPPONENT_POVERTY, 0, sizeof(V_OPPONENT_POVERTY))
    memset(V_PRISON, 0, sizeof(V_PRISON))
    memset(V_PRISON_POVERTY, 0, sizeof(V_PRISON_POVERTY))
    memset(V_PRISON_VP, 0, sizeof(V_PRISON_VP))
    memset(V_WORKHOUSE, 0, sizeof(V_WORKHOUSE))
    memset(V_PAUPER_MONEY, 0, sizeof(V_PAUPER_MONEY))
    memset(V_PAUPER_POVERTY, 0, sizeof(V_PAUPER_POVERTY))
    memset(V_UNDERGROUND, 0, sizeof(V_UNDERGROUND))
    memset(V_WHITEHALL, 0, sizeof(V_WHITEHALL))
    memset(V_HOSPITAL, 0, sizeof(V_HOSPITAL))
    memset(V_COFFEE, 0, sizeof(V_COFFEE))
    memset(V_PAUPER, 0, sizeof(V_PAUPER))


IMPLEMENTED = {
    "play": {"placed_without_expending"},
    "permanent": {"expend_any_colour_for_money", "look_at_deck_when_drawing", "swap_hand_with_display",
                  "loan_amount", "store_money_on_card", "hand_not_counted_for_poverty", "draw_count_choice"},
    "activation": {"gain_money", "gain_vp", "discard_poverty", "take_poverty", "money_per_borough",
                   "money_per_card_in_display", "vp_per_card_in_display", "collect_money_on_card",
                   "others_pay_you", "others_pay_bank_per_borough", "give_poverty", "opponent_takes_poverty",
                   "expend_cards_for_poverty", "expend_paupers", "place_underground", "reactivate_another",
                   "flip_in_place_of_another", "place_from_display_on_this"},
    "hand": {"discard_to_draw", "discard_to_place_any_colour"},
}


def _check_codes(cards):
    """Every power code of every card is one this engine implements (LN-7)."""
    for c in cards:
        slots = {"play": c.play, "permanent": c.permanent, "hand": c.hand,
                 "activation": c.activation.effects if c.activation is not None else ()}
        for slot, powers in slots.items():
            for p in powers:
                if p.code not in IMPLEMENTED[slot]:
                    raise ValueError(f"cards.json: {c.id}: {slot} power {p.code} is not implemented")


def _kind_key(c):
    """What a rule can see of a card (LN-93): everything but its name and id."""
    return (c.deck, c.colour, c.cost, c.vp, c.base, c.play, c.permanent, c.activation, c.hand)


def _load():
    """Copies the checked component data into the engine's tables (LN-2, LN-3, LN-7, LN-8, LN-11)."""
    global NV, N_KINDS, CARDS, VERSIONS, KIND_OF, KINDS, BOROUGHS, BOROUGH_IDS, VERSION_INDEX, BOROUGH_INDEX
    global FIRST_UNDERGROUND, UNDERGROUND_CROSSING, UNDERGROUND_VP, UNDERGROUND_COUNTERS, BUILDING_COUNTERS
    global POVERTY_TABLE_N, POVERTY_BEYOND
    cards = _components.cards()
    board = _components.board()
    table, beyond = _components.load_poverty()
    if len(cards) > MAX_V:
        raise ValueError(f"cards.json: {len(cards)} versions, the engine holds {MAX_V}")
    if len(board.boroughs) != NB:
        raise ValueError(f"board.json: {len(board.boroughs)} boroughs, the engine holds {NB}")
    kinds = {}
    kind_of = []
    for c in cards:
        kind_of.append(kinds.setdefault(_kind_key(c), len(kinds)))
    if len(kinds) > MAX_K:
        raise ValueError(f"cards.json: {len(kinds)} kinds, the engine holds {MAX_K}")
    _check_codes(cards)                 # before any table changes: a refused file leaves them intact
    _clear_tables()
    NV = len(cards)
    N_KINDS = len(kinds)
    CARDS = tuple(cards)
    VERSIONS = tuple(c.id for c in cards)
    VERSION_INDEX = {c.id: i for i, c in enumerate(cards)}
    KIND_OF = tuple(kind_of)
    KINDS = tuple(tuple(v for v in range(NV) if kind_of[v] == k) for k in range(N_KINDS))
    for k in range(N_KINDS):
        K_FIRST[k] = KINDS[k][0]
    for v, c in enumerate(cards):
        V_KIND[v] = kind_of[v]
        V_LETTER[v] = LETTERS.index(c.deck)
        V_COLOUR[v] = COLOURS.index(c.colour)
        V_COPIES[v] = c.count
        V_COST[v] = c.cost
        V_VP[v] = c.vp
        V_BASE[v] = 1 if c.base else 0
        V_PAUPER[v] = 1 if c.colour == "grey" else 0
        for p in c.play:
            if p.code == "placed_without_expending":
                V_NO_EXPEND[v] = 1
            else:
                raise ValueError(f"cards.json: {c.id}: play power {p.code} is not implemented")
        for p in c.permanent:
            if p.code == "expend_any_colour_for_money":
                V_SCHOOL[v] = p["amount"]
            elif p.code == "look_at_deck_when_drawing":
                if p["cards"] > LOOK_CAP:
                    raise ValueError(f"cards.json: {c.id}: the engine shows at most {LOOK_CAP} cards")
                V_LOOK[v] = p["cards"]
            elif p.code == "swap_hand_with_display":
                if p["per_turn"] != 1:
                    raise ValueError(f"cards.json: {c.id}: the engine allows one swap a turn")
                V_SWAP[v] = 1
            elif p.code == "loan_amount":
                V_LOAN[v] = p["amount"]
            elif p.code == "store_money_on_card":
                V_STORE[v] = p["amount"]
            elif p.code == "hand_not_counted_for_poverty":
                V_PUB[v] = 1
            elif p.code == "draw_count_choice":
                V_DRAW_MIN[v] = p["min"]
                V_DRAW_MAX[v] = p["max"]
            else:
                raise ValueError(f"cards.json: {c.id}: permanent power {p.code} is not implemented")
        for p in c.hand:
            if p.code == "discard_to_draw":
                V_HAND_DRAW[v] = p["cards"]
            elif p.code == "discard_to_place_any_colour":
                V_WREN[v] = p["cards"]
            else:
                raise ValueError(f"cards.json: {c.id}: hand power {p.code} is not implemented")
        a = c.activation
        if a is None:
            continue
        V_ACT[v] = 1
        V_FLIP[v] = 1 if a.flip else 0
        if a.cost.kind == "none":
            V_ACT_COST[v] = AC_NONE
        elif a.cost.kind == "money":
            V_ACT_COST[v] = AC_MONEY
            V_ACT_MONEY[v] = a.cost.amount
        elif a.cost.colour == "any":
            V_ACT_COST[v] = AC_ANY
        elif a.cost.colour == "blue":
            V_ACT_COST[v] = AC_BLUE
        else:
            raise ValueError(f"cards.json: {c.id}: activation cost {a.cost} is not implemented")
        specials = 0
        for p in a.effects:
            if p.code == "gain_money":
                V_GAIN_MONEY[v] += p["amount"]
            elif p.code == "gain_vp":
                V_GAIN_VP[v] += p["amount"]
            elif p.code == "discard_poverty":
                V_DISCARD_POVERTY[v] += p["amount"]
            elif p.code == "take_poverty":
                V_TAKE_POVERTY[v] += p["amount"]
            elif p.code == "money_per_borough":
                V_PER_BOROUGH[v] = p["amount"]
                V_BOROUGH_SET[v] = ("all", "thames", "north", "south").index(p["boroughs"])
            elif p.code in ("money_per_card_in_display", "vp_per_card_in_display"):
                mask = sum(1 << COLOURS.index(col) for col in p["colours"])
                if p.code == "money_per_card_in_display":
                    V_MONEY_PER_CARD[v], V_MONEY_COLOURS[v] = p["amount"], mask
                    V_MONEY_COVERED[v], V_MONEY_FLIPPED[v] = int(p["covered"]), int(p["flipped"])
                else:
                    V_VP_PER_CARD[v], V_VP_COLOURS[v] = p["amount"], mask
                    V_VP_COVERED[v], V_VP_FLIPPED[v] = int(p["covered"]), int(p["flipped"])
            elif p.code == "collect_money_on_card":
                V_COLLECT[v] = 1
            elif p.code == "others_pay_you":
                V_OTHERS_PAY[v] = p["amount"]
            elif p.code == "others_pay_bank_per_borough":
                V_FIRE[v] = p["amount"]
            elif p.code == "give_poverty":
                V_GIVE_POVERTY[v] = p["amount"]
                specials += 1
            elif p.code == "opponent_takes_poverty":
                V_OPPONENT_POVERTY[v] = p["amount"]
                specials += 1
            elif p.code == "expend_cards_for_poverty":
                V_PRISON[v] = p["max_cards"]
                V_PRISON_POVERTY[v] = p["poverty_per_card"]
                V_PRISON_VP[v] = p["vp_per_card"]
                specials += 1
            elif p.code == "expend_paupers":
                V_WORKHOUSE[v] = 1
                V_PAUPER_MONEY[v] = p["money_per_card"]
                V_PAUPER_POVERTY[v] = p["poverty_per_card"]
                specials += 1
            elif p.code == "place_underground":
                V_UNDERGROUND[v] = p["markers"]
                specials += 1
            elif p.code == "reactivate_another":
                V_WHITEHALL[v] = 1
                specials += 1
            elif p.code == "flip_in_place_of_another":
                V_HOSPITAL[v] = 1
                specials += 1
            elif p.code == "place_from_display_on_this":
                V_COFFEE[v] = 1
                specials += 1
            else:
                raise ValueError(f"cards.json: {c.id}: activation effect {p.code} is not implemented")
        if specials > 1:
            # One decision-making effect per card keeps an activation's choices in one phase.
            raise ValueError(f"cards.json: {c.id}: the engine runs one special effect per activation")
    index = {b.id: i for i, b in enumerate(board.boroughs)}
    BOROUGHS = tuple(board.boroughs)
    BOROUGH_IDS = tuple(b.id for b in board.boroughs)
    BOROUGH_INDEX = index
    for i, b in enumerate(board.boroughs):
        B_COST[i] = b.cost
        B_CARDS[i] = b.cards
        B_VP[i] = b.vp
        B_NORTH[i] = 1 if b.bank == "north" else 0
        B_THAMES[i] = 1 if b.thames else 0
        B_START[i] = 1 if b.start else 0
        B_ADJ[i] = 0
        B_CROSS[i] = 0
        for n in b.neighbours:
            B_ADJ[i] |= 1 << index[n]
        for n in b.bridges:
            B_CROSS[i] |= 1 << index[n]
    u = board.underground
    FIRST_UNDERGROUND = index[u.first_in_or_next_to]
    UNDERGROUND_CROSSING = u.river_crossing_cost
    UNDERGROUND_VP = u.vp_per_counter
    UNDERGROUND_COUNTERS = u.counters
    BUILDING_COUNTERS = board.building_counters_per_player
    if len(table) > 64:
        raise ValueError("poverty.json: the engine holds a table of at most 64 entries")
    for i, x in enumerate(table):
        POVERTY_TABLE[i] = x
    POVERTY_TABLE_N = len(table)
    POVERTY_BEYOND = beyond
    cdef uint64_t h = 0x4C4F4E444F4E
    for p in range(LN_MAX_PLAYERS):
        for k in range(MAX_K):
            h = mix64(h, <uint64_t>(p * MAX_K + k + 1))
            Z_KIND[p][k] = h



cdef uint8_t LETTER_ALLOWED[3][MAX_V]   # versions of each letter (for re-deals within a letter)


cdef void _letter_masks() noexcept:
    cdef int v, l
    memset(LETTER_ALLOWED, 0, sizeof(LETTER_ALLOWED))
    for v in range(NV):
        LETTER_ALLOWED[V_LETTER[v]][v] = 1


_load()
_letter_masks()

# ------------------------------------------------------------------ helpers

cdef inline void fold(LNState* s, int event, int who, int value) noexcept nogil:
    s.public_hash = mix64(s.public_hash, <uint64_t>((event << 24) | ((who + 1) << 16) | (value & 0xFFFF)))

cdef inline int row_width(const LNState* s) noexcept nogil:
    return s.players + 1                    # 3, 4 or 5 spaces (LN-19)

cdef inline int deck_cards(const LNState* s) noexcept nogil:
    """Cards that a deck draw could take: the unseen deck and the cards put back on it."""
    return s.deck_n + s.top_n

cdef inline int display_cards(const LNState* s) noexcept nogil:
    return s.display_n[0] + s.display_n[1]

cdef inline bint is_active_card(const LNState* s, int p, int i) noexcept nogil:
    """Face up and uncovered: its permanent power is in force (LN-30, LN-42)."""
    return (s.pc_flags[p][i] & (F_DOWN | F_COVERED)) == 0

cdef void refresh_powers(LNState* s, int p) noexcept nogil:
    """Recomputes p's cached permanent powers after its Building Display changed."""
    cdef int i, v, j
    cdef int16_t* perm = &s.perm[8 * p]
    for j in range(NUM_P):
        perm[j] = 0
    for i in range(s.pc_n[p]):
        if not is_active_card(s, p, i):
            continue
        v = s.pc_version[p][i]
        if V_SCHOOL[v] > perm[P_SCHOOL]:
            perm[P_SCHOOL] = V_SCHOOL[v]
        if V_LOOK[v] > perm[P_LOOK]:
            perm[P_LOOK] = V_LOOK[v]
        if V_SWAP[v] > perm[P_SWAP]:
            perm[P_SWAP] = V_SWAP[v]
        if V_LOAN[v] > perm[P_LOAN]:
            perm[P_LOAN] = V_LOAN[v]
        if V_PUB[v] > perm[P_PUB]:
            perm[P_PUB] = V_PUB[v]
        if V_DRAW_MAX[v] > perm[P_DRAW_MAX]:
            perm[P_DRAW_MAX] = V_DRAW_MAX[v]
            perm[P_DRAW_MIN] = V_DRAW_MIN[v]

cdef void refresh_caches(LNState* s) noexcept nogil:
    """Every cache of the state, from its fields (a state built from a description)."""
    cdef int p, v, l
    s.deck_n = 0
    for l in range(3):
        s.letter_n[l] = 0
    for v in range(NV):
        s.deck_n += s.deck[v]
        s.letter_n[V_LETTER[v]] += s.deck[v]
    for p in range(LN_MAX_PLAYERS):
        for l in range(4):
            s.colour_n[4 * p + l] = 0
        for l in range(NUM_P):
            s.perm[8 * p + l] = 0
    for p in range(LN_MAX_PLAYERS):
        s.hand_mask[2 * p] = 0
        s.hand_mask[2 * p + 1] = 0
    for p in range(s.players):
        for v in range(NV):
            s.colour_n[4 * p + V_COLOUR[v]] += s.hand[p][v]
            if s.hand[p][v] > 0:
                s.hand_mask[2 * p + (v >> 6)] |= <uint64_t>1 << (v & 63)
        refresh_powers(s, p)

cdef inline int boroughs_of(const LNState* s, int p) noexcept nogil:
    cdef int b, n = 0
    for b in range(NB):
        if s.owner[b] == p:
            n += 1
    return n

cdef inline uint32_t occupied_mask(const LNState* s) noexcept nogil:
    cdef uint32_t m = 0
    cdef int b
    for b in range(NB):
        if s.owner[b] >= 0:
            m |= <uint32_t>1 << b
    return m

cdef inline uint32_t underground_mask(const LNState* s) noexcept nogil:
    cdef uint32_t m = 0
    cdef int b
    for b in range(NB):
        if s.underground[b]:
            m |= <uint32_t>1 << b
    return m

cdef extern from *:
    int count_trailing_zeros "__builtin_ctzll"(unsigned long long) nogil

cdef inline int hand_next(const LNState* s, int p, int v) noexcept nogil:
    """The first version >= v in p's hand, or -1 (a scan of the hand's bit mask)."""
    cdef uint64_t m
    cdef int w
    if v >= 128:
        return -1
    w = v >> 6
    m = s.hand_mask[2 * p + w] & (~<uint64_t>0 << (v & 63))
    while True:
        if m:
            return (w << 6) + count_trailing_zeros(m)
        w += 1
        if w >= 2:
            return -1
        m = s.hand_mask[2 * p + w]

cdef inline void hand_add(LNState* s, int p, int v) noexcept nogil:
    s.hand[p][v] += 1
    s.hand_n[p] += 1
    s.hand_mask[2 * p + (v >> 6)] |= <uint64_t>1 << (v & 63)
    s.colour_n[4 * p + V_COLOUR[v]] += 1
    s.hand_hash[p] += Z_KIND[p][V_KIND[v]]

cdef inline void hand_remove(LNState* s, int p, int v) noexcept nogil:
    """A card leaves the hand, face up for all to see: what others were sure of drops by one
    copy of it, never below zero (LN-84)."""
    s.hand[p][v] -= 1
    s.hand_n[p] -= 1
    if s.hand[p][v] == 0:
        s.hand_mask[2 * p + (v >> 6)] &= ~(<uint64_t>1 << (v & 63))
    s.colour_n[4 * p + V_COLOUR[v]] -= 1
    s.hand_hash[p] -= Z_KIND[p][V_KIND[v]]
    if s.known[p][v] > 0:
        s.known[p][v] -= 1
    if s.owner_sure[p][v] > 0:
        s.owner_sure[p][v] -= 1
        s.sure_hash -= Z_KIND[p][V_KIND[v]]

cdef inline void hand_add_known(LNState* s, int p, int v) noexcept nogil:
    """A card taken from the face-up Card Display: every seat knows it is in the hand (LN-84)."""
    hand_add(s, p, v)
    s.known[p][v] += 1
    s.owner_sure[p][v] += 1
    s.sure_hash += Z_KIND[p][V_KIND[v]]

cdef inline bint named_of_kind(const LNState* s, int k) noexcept nogil:
    return s.named > 0 and V_KIND[s.named - 1] == k

cdef inline int hand_version(const LNState* s, int p, int k) noexcept nogil:
    """The copy of kind k that leaves p's hand: the lowest version held (LN-93), or the one the
    client named (apply_named); -1 if none."""
    cdef int v
    if named_of_kind(s, k) and s.hand[p][s.named - 1] > 0:
        return s.named - 1
    v = hand_next(s, p, K_FIRST[k])
    while v >= 0:
        if V_KIND[v] == k:
            return v
        v = hand_next(s, p, v + 1)
    return -1

cdef inline int hand_colour(const LNState* s, int p, int colour) noexcept nogil:
    return s.colour_n[4 * p + colour]

cdef void display_insert(LNState* s, int r, int v) noexcept nogil:
    cdef int i = s.display_n[r]
    while i > 0 and s.display[r][i - 1] > v:
        s.display[r][i] = s.display[r][i - 1]
        i -= 1
    s.display[r][i] = v
    s.display_n[r] += 1

cdef void display_put(LNState* s, int v) noexcept nogil:
    """A card goes to the Card Display (LN-20): the top row first, then the bottom row; with
    both full the top row is discarded and the bottom row moves up."""
    cdef int w = row_width(s), i
    if s.display_n[0] < w:
        display_insert(s, 0, v)
    elif s.display_n[1] < w:
        display_insert(s, 1, v)
    else:
        for i in range(s.display_n[0]):
            s.discard[s.display[0][i]] += 1
        for i in range(s.display_n[1]):
            s.display[0][i] = s.display[1][i]
        s.display_n[0] = s.display_n[1]
        s.display_n[1] = 0
        display_insert(s, 1, v)

cdef int row_version(const LNState* s, int r, int k) noexcept nogil:
    """The space in row r of the kind's lowest version (the row is sorted), or of the version
    the client named (apply_named); -1 if none."""
    cdef int i
    if named_of_kind(s, k):
        for i in range(s.display_n[r]):
            if s.display[r][i] == s.named - 1:
                return i
    for i in range(s.display_n[r]):
        if V_KIND[s.display[r][i]] == k:
            return i
    return -1

cdef int look_index(const LNState* s, int k) noexcept nogil:
    """Where in the University look the card of kind k that leaves it lies: the first of the
    kind, or the one the client named (apply_named); -1 if none."""
    cdef int i, first = -1
    for i in range(s.look_n):
        if V_KIND[s.look[i]] == k:
            if s.look[i] == s.named - 1:
                return i
            if first < 0:
                first = i
    return first

cdef int look_take(LNState* s, int k) noexcept nogil:
    """Takes a card of kind k out of the University look (the caller lists only kinds it holds)."""
    cdef int i = look_index(s, k), v
    if i < 0:
        return -1
    v = s.look[i]
    s.look[i] = s.look[s.look_n - 1]
    s.look_n -= 1
    return v

cdef int display_take(LNState* s, int r, int k) noexcept nogil:
    """Takes the lowest version of kind k from row r; its space stays free (LN-21)."""
    cdef int i = row_version(s, r, k), v, j
    if i < 0:
        return -1
    v = s.display[r][i]
    for j in range(i, s.display_n[r] - 1):
        s.display[r][j] = s.display[r][j + 1]
    s.display_n[r] -= 1
    return v

cdef inline int loan_value(const LNState* s, int p) noexcept nogil:
    cdef int x = s.perm[8 * p + P_LOAN]
    return x if x > 0 else 10

cdef void pay(LNState* s, int p, int amount) noexcept nogil:
    """Pays the bank; the fewest loans that cover a shortfall are taken first (LN-22 to LN-24)."""
    cdef int loan, n
    if amount <= 0:
        return
    if s.money[p] < amount:
        loan = loan_value(s, p)
        n = (amount - s.money[p] + loan - 1) // loan
        s.loans[p] += n
        s.money[p] += n * loan
    s.money[p] -= amount

cdef inline void lose_poverty(LNState* s, int p, int n) noexcept nogil:
    s.poverty[p] -= n
    if s.poverty[p] < 0:
        s.poverty[p] = 0                    # never below zero; the rest is lost (LN-38)

cdef inline int top_letter(const LNState* s) noexcept nogil:
    cdef int l
    for l in range(3):
        if s.letter_n[l] > 0:
            return l
    return 3

cdef int count_display_cards(const LNState* s, int p, int colours, int covered, int flipped) noexcept nogil:
    """Cards of the colour mask in p's Building Display (LN-57, LN-58)."""
    cdef int i, n = 0, f
    for i in range(s.pc_n[p]):
        f = s.pc_flags[p][i]
        if (f & F_COVERED) and not covered:
            continue
        if (f & F_DOWN) and not flipped:
            continue
        if (colours >> V_COLOUR[s.pc_version[p][i]]) & 1:
            n += 1
    return n

cdef int boroughs_in_set(const LNState* s, int p, int which) noexcept nogil:
    cdef int b, n = 0
    for b in range(NB):
        if s.owner[b] != p:
            continue
        if which == BS_ALL or (which == BS_THAMES and B_THAMES[b]) or (which == BS_NORTH and B_NORTH[b]) \
                or (which == BS_SOUTH and not B_NORTH[b]):
            n += 1
    return n

# ------------------------------------------------------------------ the turn


cdef inline int poverty_penalty(int n) noexcept nogil:
    """VP lost with n poverty points above the lowest player's (LN-11, LN-79)."""
    if n < POVERTY_TABLE_N:
        return POVERTY_TABLE[n]
    return POVERTY_TABLE[POVERTY_TABLE_N - 1] + POVERTY_BEYOND * (n - POVERTY_TABLE_N + 1)

ctypedef struct LNScore:
    # One seat's final scoring by category (LN-75 to LN-80), as the end of the game scores it.
    int vp_counters         # VP counters taken in play
    int repaid              # loans repaid, £15 each (LN-76)
    int unpaid              # loans left, 7 VP each (LN-78)
    int money_left          # money after the repayments
    int money_vp            # 1 VP per £3 of it
    int borough_vp          # the boroughs' VP (LN-78)
    int underground_vp      # 2 VP per Underground counter in an owned borough
    int card_vp             # the VP of the Building Display's cards
    int poverty             # poverty points, the cards left in hand counted (LN-77)
    int poverty_penalty     # VP lost for poverty above the lowest player's (LN-79)
    int boroughs            # boroughs owned (a tie-break, LN-81)
    int top_card            # the best card's VP (a tie-break, LN-81)
    int vp                  # the total

cdef void score_seats(const LNState* s, LNScore* out) noexcept nogil:
    """The position scored as the end of the game scores it (LN-75 to LN-80), category by
    category, without changing it; the one statement of the final scoring."""
    cdef int p, b, i, x, lowest = 1 << 14
    cdef LNScore* c
    for p in range(s.players):
        c = &out[p]
        c.vp_counters = s.vp[p]
        c.repaid = s.money[p] // 15
        if c.repaid > s.loans[p]:
            c.repaid = s.loans[p]
        c.unpaid = s.loans[p] - c.repaid
        c.money_left = s.money[p] - 15 * c.repaid
        c.money_vp = c.money_left // 3
        c.poverty = s.poverty[p] + s.hand_n[p]
        c.boroughs = 0
        c.borough_vp = 0
        c.underground_vp = 0
        for b in range(NB):
            if s.owner[b] == p:
                c.boroughs += 1
                c.borough_vp += B_VP[b]
                if s.underground[b]:
                    c.underground_vp += UNDERGROUND_VP
        c.top_card = 0
        c.card_vp = 0
        for i in range(s.pc_n[p]):
            x = V_VP[s.pc_version[p][i]]
            c.card_vp += x
            if x > c.top_card:
                c.top_card = x
        if c.poverty < lowest:
            lowest = c.poverty
    for p in range(s.players):
        c = &out[p]
        c.poverty_penalty = poverty_penalty(c.poverty - lowest)
        c.vp = (c.vp_counters + c.money_vp - 7 * c.unpaid + c.borough_vp + c.underground_vp
                + c.card_vp - c.poverty_penalty)

cdef void final_scores(const LNState* s, int* vp_out, int* poverty_out, int* boroughs,
                       int* top_card) noexcept nogil:
    """The final scoring's totals (score_seats): final VP, poverty before the adjustment,
    boroughs and best card (LN-81)."""
    cdef LNScore sc[LN_MAX_PLAYERS]
    cdef int p
    score_seats(s, sc)
    for p in range(s.players):
        vp_out[p] = sc[p].vp
        poverty_out[p] = sc[p].poverty
        boroughs[p] = sc[p].boroughs
        top_card[p] = sc[p].top_card

cdef void game_over(LNState* s) noexcept nogil:
    """Final scoring and the winners (LN-75 to LN-81)."""
    cdef int p, q, x, best = -1
    cdef int vp[LN_MAX_PLAYERS]
    cdef int poverty[LN_MAX_PLAYERS]
    cdef int boroughs[LN_MAX_PLAYERS]
    cdef int top_card[LN_MAX_PLAYERS]
    final_scores(s, vp, poverty, boroughs, top_card)
    s.winners = 0
    for p in range(s.players):
        s.final_vp[p] = vp[p]
        s.final_poverty[p] = poverty[p]
        if best < 0:
            best = p
            s.winners = 1 << p
            continue
        q = best
        # Compare p with the current best: VP, then fewer poverty, more boroughs, best card (LN-81).
        x = vp[p] - vp[q]
        if x == 0:
            x = poverty[q] - poverty[p]
        if x == 0:
            x = boroughs[p] - boroughs[q]
        if x == 0:
            x = top_card[p] - top_card[q]
        if x > 0:
            best = p
            s.winners = 1 << p
        elif x == 0:
            s.winners |= 1 << p
    s.phase = PH_OVER

cdef void end_turn(LNState* s) noexcept nogil:
    cdef int p = s.active, i
    for i in range(s.pc_n[p]):
        s.pc_flags[p][i] &= ~(F_PLACED_NOW | F_ACTIVATED | F_KEPT)
    s.turns += 1
    fold(s, EV_SEAT, p, 0)
    if s.last_round:
        # The turn that took the deck's last card, then one more turn each (LN-74).
        if s.turns_left < 0:
            s.turns_left = s.players - 1
        else:
            s.turns_left -= 1
        if s.turns_left <= 0:
            game_over(s)
            return
    if s.turns >= ROUND_CAP * s.players:
        game_over(s)                        # LN-97
        return
    s.active = (p + 1) % s.players
    start_turn(s)

cdef void end_action(LNState* s) noexcept nogil:
    if s.hand_n[s.active] > HAND_LIMIT:
        s.phase = PH_CUT                    # LN-17
    else:
        end_turn(s)

cdef void begin_draws(LNState* s, int why, int n, int at_least) noexcept nogil:
    s.draw_for = why
    s.draw_to = DT_HAND
    s.draws_left = n
    s.draws_min = at_least
    s.draws_taken = 0

cdef void begin_turn_draws(LNState* s) noexcept nogil:
    """The cards due at the turn's start: one (LN-13), or Parliament's 0 to 2 (LN-49)."""
    cdef int most = s.perm[8 * s.active + P_DRAW_MAX]
    if most > 0:
        begin_draws(s, DF_TURN, most, s.perm[8 * s.active + P_DRAW_MIN])
    else:
        begin_draws(s, DF_TURN, 1, 1)

cdef void begin_turn_draw(LNState* s) noexcept nogil:
    begin_turn_draws(s)
    goto_source(s)

cdef void start_turn(LNState* s) noexcept nogil:
    s.action = ACT_NONE
    s.placed = 0
    s.activations = 0
    s.wren_waivers = 0
    s.pending = -1
    s.pending_stack = -1
    s.effect_card = -1
    s.choices_left = 0
    s.swapped = 0
    s.swap_row = -1
    s.look_target = 0
    if s.perm[8 * s.active + P_LOOK] > 0 and deck_cards(s) > 0:
        s.phase = PH_LOOK                   # LN-50
    else:
        begin_turn_draw(s)

cdef void after_turn_card(LNState* s) noexcept nogil:
    if s.perm[8 * s.active + P_SWAP] and not s.swapped and display_cards(s) > 0 and s.hand_n[s.active] > 0:
        s.phase = PH_SWAP                   # LN-51
    else:
        s.phase = PH_ACTION

cdef inline void clear_draw(LNState* s) noexcept nogil:
    """A draw is over: its counts go back to zero, so that a position outside a draw holds no
    leftover of the last one (the decoder requires zeros there)."""
    s.draws_left = 0
    s.draws_taken = 0
    s.draws_min = 0
    s.draw_for = DF_TURN
    s.draw_to = DT_HAND

cdef void finish_draws(LNState* s) noexcept nogil:
    cdef int why = s.draw_for
    clear_draw(s)
    if why == DF_TURN:
        after_turn_card(s)
    elif why == DF_HAND_POWER:
        s.phase = PH_PLAY
    else:
        end_action(s)

cdef void goto_source(LNState* s) noexcept nogil:
    if s.draws_left <= 0 or (deck_cards(s) == 0 and display_cards(s) == 0):
        s.draws_left = 0                    # nothing left to take: the rest is not taken (LN-15)
        finish_draws(s)
    else:
        s.phase = PH_SOURCE

cdef inline void note_deck_taken(LNState* s) noexcept nogil:
    if not s.last_round and deck_cards(s) + s.look_n == 0:
        s.last_round = 1                    # LN-74
        s.turns_left = -1

cdef void card_taken(LNState* s, bint looked) noexcept nogil:
    s.draws_left -= 1
    s.draws_taken += 1
    note_deck_taken(s)
    if looked:
        goto_take_looked(s)
    else:
        goto_source(s)

cdef void continue_look(LNState* s) noexcept nogil:
    """University: the top cards come to the look, those put back first (LN-50)."""
    cdef int i
    while s.look_n < s.look_target and s.top_n > 0:
        s.look[s.look_n] = s.top[0]
        s.look_n += 1
        for i in range(s.top_n - 1):
            s.top[i] = s.top[i + 1]
        s.top_n -= 1
    if s.look_n < s.look_target:
        s.draw_to = DT_LOOK
        s.phase = PH_DRAW
        return
    begin_turn_draws(s)                 # each card taken is a looked-at or a Display card (LN-50)
    goto_take_looked(s)

cdef void goto_take_looked(LNState* s) noexcept nogil:
    if s.draws_left <= 0 or (s.look_n == 0 and display_cards(s) == 0):
        clear_draw(s)
        if s.look_n > 0:
            s.phase = PH_PUT_BACK
        else:
            after_turn_card(s)
    else:
        s.phase = PH_TAKE_LOOKED

cdef void receive_draw(LNState* s, int v, bint from_top) noexcept nogil:
    """A card has come off the deck (a chance event, or a card put back by University)."""
    cdef int p = s.active
    if s.draw_to == DT_LOOK:
        s.look[s.look_n] = v
        s.look_n += 1
        fold(s, EV_LOOKED, p, V_LETTER[v])
        continue_look(s)
        return
    hand_add(s, p, v)
    if from_top and s.uni_owner >= 0 and p != s.uni_owner:
        s.owner_sure[p][v] += 1             # the owner put it there (LN-85)
        s.sure_hash += Z_KIND[p][V_KIND[v]]
    fold(s, EV_DRAW, p, V_LETTER[v])
    card_taken(s, False)

cdef void take_from_deck(LNState* s) noexcept nogil:
    cdef int v, i
    if s.top_n > 0:
        v = s.top[0]
        for i in range(s.top_n - 1):
            s.top[i] = s.top[i + 1]
        s.top_n -= 1
        receive_draw(s, v, True)
    else:
        s.draw_to = DT_HAND
        s.phase = PH_DRAW

# ------------------------------------------------------------------ Play Cards

cdef inline bint placement_payable(const LNState* s, int p, int v, int waivers) noexcept nogil:
    """Could v (still in the hand) be placed now: a card to expend, or a power that spares it (LN-28)."""
    if not V_BASE[v]:
        return False
    if V_NO_EXPEND[v] or waivers > 0:
        return True
    if hand_colour(s, p, V_COLOUR[v]) >= 2:
        return True
    return s.perm[8 * p + P_SCHOOL] > 0 and s.hand_n[p] >= 2

cdef bint can_place_any(const LNState* s, int p, bint with_wren) noexcept nogil:
    cdef int v, waivers = s.wren_waivers
    if with_wren and waivers == 0:
        v = hand_next(s, p, 0)
        while v >= 0:
            if V_WREN[v] > 0:
                waivers = V_WREN[v]
            v = hand_next(s, p, v + 1)
    v = hand_next(s, p, 0)
    while v >= 0:
        if placement_payable(s, p, v, waivers):
            return True
        v = hand_next(s, p, v + 1)
    return False

cdef inline bint stack_target(const LNState* s, int p, int i) noexcept nogil:
    """A stack top a new card may go on: uncovered, not placed this turn (LN-29)."""
    return (s.pc_flags[p][i] & (F_COVERED | F_PLACED_NOW)) == 0

cdef int find_stack(const LNState* s, int p, int k, int down) noexcept nogil:
    """The stack top of kind k and face state to cover: the one holding the least Shops money,
    as covering loses it (LN-30, LN-94)."""
    cdef int i, best = -1
    for i in range(s.pc_n[p]):
        if stack_target(s, p, i) and V_KIND[s.pc_version[p][i]] == k \
                and ((s.pc_flags[p][i] & F_DOWN) != 0) == (down != 0):
            if best < 0 or s.pc_money[p][i] < s.pc_money[p][best] or (
                    s.pc_money[p][i] == s.pc_money[p][best] and s.pc_version[p][i] == s.named - 1):
                best = i                    # of equal ones, the card the client named
    return best

cdef void place_card(LNState* s, int p, int v, int cover) noexcept nogil:
    """v joins p's Building Display, on the stack top `cover` or as a new stack; its £ cost is
    paid and face-up Shops collect (LN-28 to LN-31, LN-48)."""
    cdef int stack, i, j, w
    if cover >= 0 and s.pc_n[p] < MAX_PLACED:
        s.pc_flags[p][cover] |= F_COVERED
        s.pc_money[p][cover] = 0            # back to the bank (LN-30)
        stack = s.pc_stack[p][cover]
    else:
        stack = s.stacks[p]
        s.stacks[p] += 1
    i = s.pc_n[p]
    if i >= MAX_PLACED:
        return                              # unreachable: 95 cards have a stone base
    s.pc_n[p] += 1
    s.pc_version[p][i] = v
    s.pc_stack[p][i] = stack
    s.pc_flags[p][i] = F_PLACED_NOW
    s.pc_money[p][i] = 0
    pay(s, p, V_COST[v])
    for j in range(i):
        w = s.pc_version[p][j]
        if V_STORE[w] and is_active_card(s, p, j):
            s.pc_money[p][j] += V_STORE[w]
    refresh_powers(s, p)

cdef void begin_payment(LNState* s) noexcept nogil:
    cdef int p = s.active
    if V_NO_EXPEND[s.pending]:
        pass
    elif s.wren_waivers > 0:
        s.wren_waivers -= 1                 # LN-35
    else:
        s.phase = PH_PAY
        return
    place_card(s, p, s.pending, s.pending_stack)
    s.placed += 1
    s.pending = -1
    s.phase = PH_PLAY

# ------------------------------------------------------------------ Run City

cdef inline bint whitehall_target(const LNState* s, int p, int i, int whitehall) noexcept nogil:
    cdef int v = s.pc_version[p][i]
    return i != whitehall and (s.pc_flags[p][i] & F_ACTIVATED) and not (s.pc_flags[p][i] & F_COVERED) \
        and V_ACT[v] and not V_HOSPITAL[v]

cdef bint can_activate(const LNState* s, int p, int i) noexcept nogil:
    cdef int v = s.pc_version[p][i], j, r, c
    if s.pc_flags[p][i] & (F_DOWN | F_COVERED | F_ACTIVATED):
        return False
    if not V_ACT[v] or V_HOSPITAL[v]:
        return False                        # a Hospital acts at the flip step (LN-43)
    c = V_ACT_COST[v]
    if c == AC_ANY and s.hand_n[p] == 0:
        return False
    if c == AC_BLUE and hand_colour(s, p, C_BLUE) == 0:
        return False
    if V_COFFEE[v]:
        for r in range(2):
            for j in range(s.display_n[r]):
                if V_BASE[s.display[r][j]]:
                    return True
        return False
    if V_WHITEHALL[v]:
        for j in range(s.pc_n[p]):
            if whitehall_target(s, p, j, i):
                return True
        return False
    return True

cdef bint can_activate_any(const LNState* s, int p) noexcept nogil:
    cdef int i
    for i in range(s.pc_n[p]):
        if can_activate(s, p, i):
            return True
    return False

cdef bint underground_legal(const LNState* s, int b) noexcept nogil:
    """LN-67: a building counter, no Underground counter, joined to the network (or the City)."""
    cdef uint32_t net
    if s.owner[b] < 0 or s.underground[b]:
        return False
    net = underground_mask(s)
    if net == 0:
        return b == FIRST_UNDERGROUND or ((B_ADJ[FIRST_UNDERGROUND] >> b) & 1) != 0
    return (B_ADJ[b] & net) != 0

cdef void next_underground(LNState* s) noexcept nogil:
    cdef int b
    if s.choices_left > 0 and s.underground_left > 0:
        for b in range(NB):
            if underground_legal(s, b):
                s.phase = PH_UNDERGROUND
                return
    s.choices_left = 0                      # no legal borough: the counter is not placed (LN-66)
    back_to_run(s)

cdef void run_effects(LNState* s, int i) noexcept nogil:
    """The activation of p's card i after its cost: £, VP, poverty, then its special effect (LN-39)."""
    cdef int p = s.active, v = s.pc_version[p][i], q, gain
    gain = V_GAIN_MONEY[v]
    if V_PER_BOROUGH[v]:
        gain += V_PER_BOROUGH[v] * boroughs_in_set(s, p, V_BOROUGH_SET[v])
    if V_MONEY_PER_CARD[v]:
        gain += V_MONEY_PER_CARD[v] * count_display_cards(s, p, V_MONEY_COLOURS[v], V_MONEY_COVERED[v],
                                                          V_MONEY_FLIPPED[v])
    if V_COLLECT[v]:
        gain += s.pc_money[p][i]
        s.pc_money[p][i] = 0
    s.money[p] += gain
    if V_OTHERS_PAY[v]:
        for q in range(s.players):
            if q != p:
                pay(s, q, V_OTHERS_PAY[v])  # with loans if short (LN-23, LN-59)
                s.money[p] += V_OTHERS_PAY[v]
    s.vp[p] += V_GAIN_VP[v]
    if V_VP_PER_CARD[v]:
        s.vp[p] += V_VP_PER_CARD[v] * count_display_cards(s, p, V_VP_COLOURS[v], V_VP_COVERED[v], V_VP_FLIPPED[v])
    lose_poverty(s, p, V_DISCARD_POVERTY[v])
    s.poverty[p] += V_TAKE_POVERTY[v]
    if V_FIRE[v]:
        for q in range(s.players):
            if q != p:
                pay(s, q, V_FIRE[v] * boroughs_of(s, q))     # LN-23, LN-60
    s.effect_card = i
    if V_COFFEE[v]:
        s.phase = PH_COFFEE
    elif V_OPPONENT_POVERTY[v]:
        s.phase = PH_TARGET
    elif V_GIVE_POVERTY[v]:
        if s.poverty[p] > 0:
            s.phase = PH_TARGET
        else:
            back_to_run(s)                  # nothing to move (LN-62)
    elif V_PRISON[v]:
        s.choices_left = V_PRISON[v]
        if s.hand_n[p] > 0:
            s.phase = PH_PRISON
        else:
            back_to_run(s)
    elif V_WORKHOUSE[v]:
        s.phase = PH_WORKHOUSE
        if hand_colour(s, p, C_GREY) == 0:
            back_to_run(s)
    elif V_UNDERGROUND[v]:
        s.choices_left = V_UNDERGROUND[v]
        next_underground(s)
    elif V_WHITEHALL[v]:
        s.phase = PH_WHITEHALL
    else:
        back_to_run(s)

cdef void back_to_run(LNState* s) noexcept nogil:
    s.effect_card = -1
    s.choices_left = 0
    s.pending = -1
    s.phase = PH_RUN

cdef inline bint flip_candidate(const LNState* s, int p, int i) noexcept nogil:
    cdef int f = s.pc_flags[p][i]
    return (f & F_ACTIVATED) and not (f & (F_KEPT | F_DOWN)) and V_FLIP[s.pc_version[p][i]]

cdef int usable_hospital(const LNState* s, int p) noexcept nogil:
    cdef int i, v
    for i in range(s.pc_n[p]):
        v = s.pc_version[p][i]
        if V_HOSPITAL[v] and is_active_card(s, p, i):
            return i
    return -1

cdef void finish_run(LNState* s) noexcept nogil:
    """Flips, then the poverty of the run (LN-41, LN-44)."""
    cdef int p = s.active, i, n
    for i in range(s.pc_n[p]):
        if flip_candidate(s, p, i):
            s.pc_flags[p][i] |= F_DOWN
    refresh_powers(s, p)
    n = s.stacks[p] - boroughs_of(s, p)
    if not s.perm[8 * p + P_PUB]:
        n += s.hand_n[p]
    if n > 0:
        s.poverty[p] += n
    else:
        lose_poverty(s, p, -n)
    end_action(s)

cdef void flip_step(LNState* s) noexcept nogil:
    cdef int p = s.active, i
    if usable_hospital(s, p) >= 0:
        for i in range(s.pc_n[p]):
            if flip_candidate(s, p, i):
                s.phase = PH_HOSPITAL
                return
    finish_run(s)

# ------------------------------------------------------------------ legal actions

cdef inline int add_kind(int* out, int n, int r, int k) noexcept nogil:
    # Duplicates (two versions of a kind) are removed once the list is sorted (legal's end).
    out[n] = A_KINDS + MAX_K * r + k
    return n + 1

cdef int hand_kinds(const LNState* s, int p, int r, int colour, int other_than, int* out, int n) noexcept nogil:
    """Adds range r's action for each kind in p's hand (of `colour` if >= 0, not of
    `other_than` if >= 0)."""
    cdef int v = hand_next(s, p, 0)
    while v >= 0:
        if (colour < 0 or V_COLOUR[v] == colour) and (other_than < 0 or V_COLOUR[v] != other_than):
            n = add_kind(out, n, r, V_KIND[v])
        v = hand_next(s, p, v + 1)
    return n

cdef int display_kinds(const LNState* s, int r_top, int r_bottom, bint base_only, int* out, int n) noexcept nogil:
    cdef int i, v
    for i in range(s.display_n[0]):
        v = s.display[0][i]
        if V_BASE[v] or not base_only:
            n = add_kind(out, n, r_top, V_KIND[v])
    for i in range(s.display_n[1]):
        v = s.display[1][i]
        if V_BASE[v] or not base_only:
            n = add_kind(out, n, r_bottom, V_KIND[v])
    return n

cdef void sort_ints(int* a, int n) noexcept nogil:
    cdef int i, j, x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x

cdef int chance_list(const LNState* s, int* actions, double* probs) noexcept nogil:
    """The deck's next card: uniform among the unseen cards of its topmost letter (LN-85, LN-89)."""
    cdef int l = top_letter(s), v, n = 0, total = 0
    for v in range(NV):
        if s.deck[v] > 0 and V_LETTER[v] == l:
            total += s.deck[v]
    for v in range(NV):
        if s.deck[v] > 0 and V_LETTER[v] == l:
            actions[n] = A_CHANCE + v
            if probs != NULL:
                probs[n] = s.deck[v] / <double>total
            n += 1
    return n

cdef int legal(const LNState* s, int* out) noexcept nogil:
    cdef int p = s.active, n = 0, v, i, b, ph = s.phase, k
    cdef uint32_t occupied
    if ph == PH_DEAL or ph == PH_DRAW:
        return chance_list(s, out, NULL)
    if ph == PH_OVER:
        return 0
    if ph == PH_LOOK:
        out[0] = A_LOOK
        out[1] = A_NO_LOOK
        return 2
    if ph == PH_SOURCE:
        if deck_cards(s) > 0:
            out[n] = A_DECK
            n += 1
        if s.draws_taken >= s.draws_min:
            out[n] = A_STOP
            n += 1
        n = display_kinds(s, R_TAKE_TOP, R_TAKE_BOTTOM, False, out, n)
    elif ph == PH_TAKE_LOOKED:
        if s.draws_taken >= s.draws_min:
            out[n] = A_STOP
            n += 1
        for i in range(s.look_n):
            n = add_kind(out, n, R_TAKE_LOOKED, V_KIND[s.look[i]])
        n = display_kinds(s, R_TAKE_TOP, R_TAKE_BOTTOM, False, out, n)
    elif ph == PH_PUT_BACK:
        for i in range(s.look_n):
            n = add_kind(out, n, R_PUT_BACK, V_KIND[s.look[i]])
    elif ph == PH_SWAP:
        out[n] = A_NO_SWAP
        n += 1
        n = display_kinds(s, R_SWAP_TOP, R_SWAP_BOTTOM, False, out, n)
    elif ph == PH_GIVE:
        n = hand_kinds(s, p, R_GIVE, -1, -1, out, n)
    elif ph == PH_ACTION:
        if can_place_any(s, p, True):
            out[n] = A_PLAY_CARDS
            n += 1
        if can_activate_any(s, p):
            out[n] = A_RUN_CITY
            n += 1
        if boroughs_of(s, p) < BUILDING_COUNTERS:
            occupied = occupied_mask(s)
            for b in range(NB):
                if _buyable(s, b, occupied):
                    out[n] = A_BUY_LAND
                    n += 1
                    break
        out[n] = A_TAKE_THREE
        n += 1
    elif ph == PH_PLAY:
        k = 0                               # a placement is possible now
        v = hand_next(s, p, 0)
        while v >= 0:
            if placement_payable(s, p, v, s.wren_waivers):
                n = add_kind(out, n, R_PLACE, V_KIND[v])
                k = 1
            if V_HAND_DRAW[v] or V_WREN[v]:
                n = add_kind(out, n, R_USE, V_KIND[v])
            v = hand_next(s, p, v + 1)
        if s.placed > 0 or not (k or can_place_any(s, p, True)):
            out[n] = A_DONE                 # LN-32
            n += 1
    elif ph == PH_WHERE:
        out[n] = A_NEW_STACK
        n += 1
        for i in range(s.pc_n[p]):
            if stack_target(s, p, i):
                n = add_kind(out, n, R_ON_DOWN if s.pc_flags[p][i] & F_DOWN else R_ON_UP,
                             V_KIND[s.pc_version[p][i]])
    elif ph == PH_PAY:
        n = hand_kinds(s, p, R_EXPEND, V_COLOUR[s.pending], -1, out, n)
        if s.perm[8 * p + P_SCHOOL] > 0:
            n = hand_kinds(s, p, R_SCHOOL, -1, V_COLOUR[s.pending], out, n)   # LN-47
    elif ph == PH_RUN:
        if s.activations > 0:
            out[n] = A_DONE
            n += 1
        for i in range(s.pc_n[p]):
            if can_activate(s, p, i):
                n = add_kind(out, n, R_ACTIVATE, V_KIND[s.pc_version[p][i]])
    elif ph == PH_RUN_COST:
        n = hand_kinds(s, p, R_EXPEND, C_BLUE if V_ACT_COST[s.pc_version[p][s.pending]] == AC_BLUE else -1,
                       -1, out, n)
    elif ph == PH_COFFEE:
        n = display_kinds(s, R_COFFEE_TOP, R_COFFEE_BOTTOM, True, out, n)
    elif ph == PH_TARGET:
        for i in range(s.players):
            if i != p:
                out[n] = A_PLAYER + i
                n += 1
    elif ph == PH_PRISON:
        out[n] = A_STOP
        n += 1
        n = hand_kinds(s, p, R_EXPEND, -1, -1, out, n)
    elif ph == PH_WORKHOUSE:
        out[n] = A_STOP
        n += 1
        n = hand_kinds(s, p, R_EXPEND, C_GREY, -1, out, n)
    elif ph == PH_WHITEHALL:
        for i in range(s.pc_n[p]):
            if whitehall_target(s, p, i, s.pending):
                n = add_kind(out, n, R_AGAIN, V_KIND[s.pc_version[p][i]])
    elif ph == PH_UNDERGROUND:
        for b in range(NB):
            if underground_legal(s, b):
                out[n] = A_COUNTER + b
                n += 1
    elif ph == PH_HOSPITAL:
        out[n] = A_STOP
        n += 1
        for i in range(s.pc_n[p]):
            if flip_candidate(s, p, i):
                n = add_kind(out, n, R_KEEP, V_KIND[s.pc_version[p][i]])
    elif ph == PH_BUY:
        occupied = occupied_mask(s)
        for b in range(NB):
            if _buyable(s, b, occupied):
                out[n] = A_BUY + b
                n += 1
    elif ph == PH_CUT:
        n = hand_kinds(s, p, R_CUT, -1, -1, out, n)
    sort_ints(out, n)
    k = 0
    for i in range(n):
        if k == 0 or out[i] != out[k - 1]:
            out[k] = out[i]
            k += 1
    return k

cdef bint _buyable(const LNState* s, int b, uint32_t occ) noexcept nogil:
    """LN-72: an unoccupied borough; a starting one while the board is empty, else next to one
    occupied (`occ`: the occupied boroughs)."""
    if s.owner[b] >= 0:
        return False
    if occ == 0:
        return B_START[b] != 0
    return (B_ADJ[b] & occ) != 0

# ------------------------------------------------------------------ applying actions

cdef void apply_one(LNState* s, int a) noexcept nogil:
    cdef int p = s.active, ph = s.phase, r = -1, k = -1, v, i, q, amount, b
    cdef uint32_t net
    if a >= A_CHANCE:
        v = a - A_CHANCE
        s.deck[v] -= 1
        s.deck_n -= 1
        s.letter_n[V_LETTER[v]] -= 1
        if ph == PH_DEAL:
            # The opening deal: six cards to each seat in turn (LN-5).
            q = (6 * s.players - s.deal_left) // 6
            hand_add(s, q, v)
            fold(s, EV_DRAW, q, V_LETTER[v])
            s.deal_left -= 1
            if s.deal_left <= 0:
                s.active = 0
                start_turn(s)
            return
        receive_draw(s, v, False)
        return
    if a >= A_KINDS:
        r = (a - A_KINDS) // MAX_K
        k = (a - A_KINDS) % MAX_K
    # What every seat sees of the decision: all of it, except which looked-at card the
    # University owner takes or puts back first (only its letter, LN-86).
    if r == R_TAKE_LOOKED or r == R_PUT_BACK:
        fold(s, EV_ACTION, p, A_KINDS + MAX_K * r + MAX_K - 1 - V_LETTER[K_FIRST[k]])
    else:
        fold(s, EV_ACTION, p, a)
    if a == A_DECK:
        take_from_deck(s)
    elif a == A_STOP:
        if ph == PH_SOURCE:
            s.draws_left = 0
            finish_draws(s)
        elif ph == PH_TAKE_LOOKED:
            s.draws_left = 0
            goto_take_looked(s)
        elif ph == PH_HOSPITAL:
            finish_run(s)
        else:                               # a prison or the Workhouse
            back_to_run(s)
    elif a == A_LOOK:
        s.look_target = s.perm[8 * p + P_LOOK]
        if s.look_target > deck_cards(s):
            s.look_target = deck_cards(s)
        continue_look(s)
    elif a == A_NO_LOOK:
        begin_turn_draw(s)
    elif a == A_NO_SWAP:
        s.swapped = 1
        s.phase = PH_ACTION
    elif a == A_PLAY_CARDS:
        s.action = ACT_PLAY
        s.phase = PH_PLAY
    elif a == A_RUN_CITY:
        s.action = ACT_RUN
        s.phase = PH_RUN
    elif a == A_BUY_LAND:
        s.action = ACT_BUY
        s.phase = PH_BUY
    elif a == A_TAKE_THREE:
        s.action = ACT_THREE
        begin_draws(s, DF_THREE, 3, 3)
        goto_source(s)
    elif a == A_DONE:
        if ph == PH_PLAY:
            end_action(s)
        else:
            flip_step(s)
    elif a == A_NEW_STACK:
        s.pending_stack = -1
        begin_payment(s)
    elif A_PLAYER <= a < A_PLAYER + LN_MAX_PLAYERS:
        q = a - A_PLAYER
        v = s.pc_version[p][s.effect_card]
        if V_OPPONENT_POVERTY[v]:
            s.poverty[q] += V_OPPONENT_POVERTY[v]           # LN-61
        else:
            amount = V_GIVE_POVERTY[v] if V_GIVE_POVERTY[v] < s.poverty[p] else s.poverty[p]
            s.poverty[p] -= amount                          # LN-62
            s.poverty[q] += amount
        back_to_run(s)
    elif A_BUY <= a < A_BUY + NB:
        b = a - A_BUY
        s.owner[b] = p
        pay(s, p, B_COST[b])
        begin_draws(s, DF_BOROUGH, B_CARDS[b], B_CARDS[b])      # LN-71
        goto_source(s)
    elif A_COUNTER <= a < A_COUNTER + NB:
        b = a - A_COUNTER
        net = underground_mask(s)
        if net != 0 and ((B_ADJ[b] & ~B_CROSS[b]) & net) == 0:
            pay(s, p, UNDERGROUND_CROSSING)                 # LN-68
        s.underground[b] = 1
        s.underground_left -= 1
        s.choices_left -= 1
        next_underground(s)
    elif r == R_TAKE_TOP or r == R_TAKE_BOTTOM:
        v = display_take(s, r - R_TAKE_TOP, k)
        hand_add_known(s, p, v)
        card_taken(s, ph == PH_TAKE_LOOKED)
    elif r == R_TAKE_LOOKED:
        hand_add(s, p, look_take(s, k))
        card_taken(s, True)
    elif r == R_PUT_BACK:
        s.top[s.top_n] = look_take(s, k)    # the first put back is drawn first
        s.top_n += 1
        s.uni_owner = p
        if s.look_n == 0:
            after_turn_card(s)
    elif r == R_SWAP_TOP or r == R_SWAP_BOTTOM:
        s.swap_row = r - R_SWAP_TOP
        v = display_take(s, s.swap_row, k)
        hand_add_known(s, p, v)
        s.phase = PH_GIVE
    elif r == R_GIVE:
        v = hand_version(s, p, k)
        hand_remove(s, p, v)
        display_insert(s, s.swap_row, v)    # into the freed space (LN-51)
        s.swapped = 1
        s.phase = PH_ACTION
    elif r == R_PLACE:
        v = hand_version(s, p, k)
        hand_remove(s, p, v)
        s.pending = v
        s.pending_stack = -1
        s.phase = PH_WHERE
    elif r == R_USE:
        v = hand_version(s, p, k)
        hand_remove(s, p, v)
        s.discard[v] += 1                   # LN-34
        if V_WREN[v]:
            s.wren_waivers += V_WREN[v]
        else:
            begin_draws(s, DF_HAND_POWER, V_HAND_DRAW[v], V_HAND_DRAW[v])
            goto_source(s)
    elif r == R_ON_UP or r == R_ON_DOWN:
        s.pending_stack = find_stack(s, p, k, r == R_ON_DOWN)
        begin_payment(s)
    elif r == R_EXPEND or r == R_SCHOOL:
        v = hand_version(s, p, k)
        hand_remove(s, p, v)
        display_put(s, v)
        if ph == PH_PAY:
            if r == R_SCHOOL:
                pay(s, p, s.perm[8 * p + P_SCHOOL])
            place_card(s, p, s.pending, s.pending_stack)
            s.placed += 1
            s.pending = -1
            s.phase = PH_PLAY
        elif ph == PH_RUN_COST:
            run_effects(s, s.pending)
        elif ph == PH_PRISON:
            i = s.pc_version[p][s.effect_card]
            lose_poverty(s, p, V_PRISON_POVERTY[i])
            s.vp[p] += V_PRISON_VP[i]
            s.choices_left -= 1
            if s.choices_left <= 0 or s.hand_n[p] == 0:
                back_to_run(s)
        else:                               # the Workhouse
            i = s.pc_version[p][s.effect_card]
            s.money[p] += V_PAUPER_MONEY[i]
            lose_poverty(s, p, V_PAUPER_POVERTY[i])
            if hand_colour(s, p, C_GREY) == 0:
                back_to_run(s)
    elif r == R_ACTIVATE:
        q = activate_pick(s, p, k)
        s.pc_flags[p][q] |= F_ACTIVATED
        s.activations += 1
        s.pending = q
        v = s.pc_version[p][q]
        if V_ACT_COST[v] == AC_ANY or V_ACT_COST[v] == AC_BLUE:
            s.phase = PH_RUN_COST
        else:
            if V_ACT_COST[v] == AC_MONEY:
                pay(s, p, V_ACT_MONEY[v])
            run_effects(s, q)
    elif r == R_AGAIN:
        i = in_play_pick(s, p, k, r)
        if i >= 0:
            run_effects(s, i)               # LN-63: no cost, the same effects, fresh choices
    elif r == R_KEEP:
        i = in_play_pick(s, p, k, r)
        if i >= 0:
            s.pc_flags[p][i] |= F_KEPT
        i = usable_hospital(s, p)
        s.pc_flags[p][i] |= F_DOWN          # LN-43
        flip_step(s)
    elif r == R_COFFEE_TOP or r == R_COFFEE_BOTTOM:
        v = display_take(s, r - R_COFFEE_TOP, k)
        place_card(s, p, v, s.effect_card)  # LN-46
        back_to_run(s)
    elif r == R_CUT:
        v = hand_version(s, p, k)
        hand_remove(s, p, v)
        display_put(s, v)
        if s.hand_n[p] <= HAND_LIMIT:
            end_turn(s)

cdef int activate_pick(const LNState* s, int p, int k) noexcept nogil:
    """The card in play of kind k that "activate" marks: of those that can be activated, the
    Shops holding the most (LN-94), and of equals the one the client named; -1 if none."""
    cdef int i, q = -1
    for i in range(s.pc_n[p]):
        if V_KIND[s.pc_version[p][i]] == k and can_activate(s, p, i):
            if q < 0 or s.pc_money[p][i] > s.pc_money[p][q] or (
                    s.pc_money[p][i] == s.pc_money[p][q] and s.pc_version[p][i] == s.named - 1):
                q = i
    return q

cdef int moved_card(const LNState* s, int a) noexcept nogil:
    """The version that kind action a moves or marks here (LN-93: the lowest of the kind, or the
    one named), read with the same helpers the rules use; -1 for other ids or none."""
    cdef int r, k, p = s.active, i, row
    if a < A_KINDS or a >= A_KINDS + MAX_K * NUM_RANGES:
        return -1
    r = (a - A_KINDS) // MAX_K
    k = (a - A_KINDS) % MAX_K
    if r == R_TAKE_TOP or r == R_TAKE_BOTTOM or r == R_SWAP_TOP or r == R_SWAP_BOTTOM \
            or r == R_COFFEE_TOP or r == R_COFFEE_BOTTOM:
        row = (r - R_TAKE_TOP) if r <= R_TAKE_BOTTOM else ((r - R_SWAP_TOP) if r <= R_SWAP_BOTTOM
                                                              else (r - R_COFFEE_TOP))
        i = row_version(s, row, k)
        return s.display[row][i] if i >= 0 else -1
    if r == R_TAKE_LOOKED or r == R_PUT_BACK:
        i = look_index(s, k)
        return s.look[i] if i >= 0 else -1
    if r == R_ON_UP or r == R_ON_DOWN:
        i = find_stack(s, p, k, r == R_ON_DOWN)
    elif r == R_ACTIVATE:
        i = activate_pick(s, p, k)
    elif r == R_AGAIN or r == R_KEEP:
        i = in_play_pick(s, p, k, r)
    else:
        return hand_version(s, p, k)
    return s.pc_version[p][i] if i >= 0 else -1

cdef int in_play_pick(const LNState* s, int p, int k, int r) noexcept nogil:
    """Whitehall's second activation or a Hospital's keep: the first card in play of kind k that
    qualifies, or the one the client named (apply_named); -1 if none."""
    cdef int i, first = -1
    cdef bint ok
    for i in range(s.pc_n[p]):
        if V_KIND[s.pc_version[p][i]] != k:
            continue
        ok = whitehall_target(s, p, i, s.pending) if r == R_AGAIN else flip_candidate(s, p, i)
        if ok:
            if s.pc_version[p][i] == s.named - 1:
                return i
            if first < 0:
                first = i
    return first

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

# The room's table (engines/abi.pxd), filled by the room kit's helpers (engines/room.pxd)
# beside the functions each puts in it, and exported as GAME_DEF.
cdef GameDef LN_DEF

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
        if V_LETTER[v] == l:
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
            h += <uint64_t>s.owner_sure[p][v] * Z_KIND[p][V_KIND[v]]
    return h

cdef uint64_t hand_hash_of(const LNState* s, int p) noexcept nogil:
    cdef uint64_t h = 0
    cdef int v
    for v in range(NV):
        h += <uint64_t>s.hand[p][v] * Z_KIND[p][V_KIND[v]]
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
    return V_NO_EXPEND[v] or s.wren_waivers > 0 or hand_colour(s, p, V_COLOUR[v]) >= 1 \
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
            by_letter[V_LETTER[v]] += hidden[p][v]
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
            s.top[i] = ms_draw_where(unseen, NV, LETTER_ALLOWED[V_LETTER[s.top[i]]], rng)
    if s.look_n > 0 and s.active != observer:
        for i in range(s.look_n):
            s.look[i] = ms_draw_where(unseen, NV, LETTER_ALLOWED[V_LETTER[s.look[i]]], rng)
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
            h = mix64(h, <uint64_t>(EV_TOP * 256 + V_KIND[s.top[i]]))
    if player == s.active and s.look_n > 0:
        for i in range(s.look_n):
            look += Z_KIND[player][V_KIND[s.look[i]]] * <uint64_t>0x9E3779B97F4A7C15
        h = mix64(h, look)
    return h

cdef int ln_make_current(void* st, int seat) noexcept nogil:
    return 1 if ln_current_player(st) == seat else 0

# A decision lists at most 1 + the stacks of a display (96), or the kinds in a hand, or 12
# sources; a chance node at most the 76 versions.  The game's length is a practical bound, as
# for Gangs of Kyoto: 100 rounds (LN-97) of 4 turns average well under 50 actions a turn; the
# search only uses it to size its in-tree path.
game_def(&LN_DEF, b"london", sizeof(LNState), LN_MAX_PLAYERS, NUM_ACTIONS, MAX_PLACED + 4, MAX_PLACED + 4, 20000,
         ln_num_players, ln_current_player, ln_legal_actions, ln_apply_action, ln_chance_outcomes, ln_sample_chance,
         ln_returns, ln_determinize, ln_infoset_key, ln_make_current)

include "rollout.pxi"
cdef enum:
    EVAL_DEPTH = 48             # rollout actions before the evaluation: about two rounds of play
cdef double EVAL_SCALE = 8.0    # VP of lead worth about 73 % (1 / (1 + e^-1)) of a win
cdef double EVAL_HAND = 0.9     # VP a card in hand is worth beyond the poverty it adds at the end

cdef double EVAL_CARDS_PER_TURN = 1.8    # cards a turn takes from the deck, on average
cdef double EVAL_RUN_SHARE = 0.5         # share of a seat's turns that run the city
cdef double EVAL_POVERTY = 1.5           # VP a poverty point costs at the end (LN-79, about)
cdef double EVAL_MONEY = 1.0 / 3.0       # VP a pound is worth at the end (LN-78)

cdef double future_yield(const LNState* s, int p, double runs) noexcept nogil:
    """VP that p's face-up cards that stay face up when activated promise, at every Run City
    still to come (`runs`).  A flipping card's one-time yield is not counted before it is
    used: counting it made the search keep such cards rather than run the city."""
    cdef int i, v
    cdef double y, total = 0.0
    for i in range(s.pc_n[p]):
        v = s.pc_version[p][i]
        if not V_ACT[v] or V_FLIP[v] or V_HOSPITAL[v] or (s.pc_flags[p][i] & (F_DOWN | F_COVERED)):
            continue
        y = V_GAIN_MONEY[v] + V_OTHERS_PAY[v] * (s.players - 1) + s.pc_money[p][i]
        if V_PER_BOROUGH[v]:
            y += V_PER_BOROUGH[v] * boroughs_in_set(s, p, V_BOROUGH_SET[v])
        if V_MONEY_PER_CARD[v]:
            y += V_MONEY_PER_CARD[v] * count_display_cards(s, p, V_MONEY_COLOURS[v], V_MONEY_COVERED[v],
                                                           V_MONEY_FLIPPED[v])
        if V_ACT_COST[v] == AC_MONEY:
            y -= V_ACT_MONEY[v]
        y *= EVAL_MONEY
        y += V_GAIN_VP[v] + EVAL_POVERTY * (V_DISCARD_POVERTY[v] - V_TAKE_POVERTY[v])
        if V_VP_PER_CARD[v]:
            y += V_VP_PER_CARD[v] * count_display_cards(s, p, V_VP_COLOURS[v], V_VP_COVERED[v], V_VP_FLIPPED[v])
        if V_ACT_COST[v] == AC_ANY or V_ACT_COST[v] == AC_BLUE:
            y -= EVAL_HAND
        if y <= 0:
            continue
        total += y * runs
    return total

cdef void ln_evaluate(const void* st, double* out) noexcept nogil:
    """The search's estimate of each seat's return (GameDef.evaluate), not a rule.

    The position is scored as if the game ended now (LN-75 to LN-80: loans, hand
    cards as poverty, money, boroughs, cards, the poverty penalty), each card in
    hand counted back at EVAL_HAND since it will rather be built or spent, plus what
    the seat's lasting money and VP cards promise (future_yield); a seat's
    estimate is then a logistic function of its lead over the best other seat, so
    that it lies in (0, 1) like the win/loss returns (LN-81)."""
    cdef double worth[LN_MAX_PLAYERS]
    cdef int vp[LN_MAX_PLAYERS]
    cdef int poverty[LN_MAX_PLAYERS]
    cdef int boroughs[LN_MAX_PLAYERS]
    cdef int top_card[LN_MAX_PLAYERS]
    cdef double best
    cdef int p, q
    cdef const LNState* s = <const LNState*>st
    cdef double runs = deck_cards(s) / (EVAL_CARDS_PER_TURN * s.players) * EVAL_RUN_SHARE
    final_scores(s, vp, poverty, boroughs, top_card)
    for p in range(s.players):
        worth[p] = vp[p] + EVAL_HAND * s.hand_n[p] + future_yield(s, p, runs)
    for p in range(s.players):
        best = -1e9
        for q in range(s.players):
            if q != p and worth[q] > best:
                best = worth[q]
        out[p] = 1.0 / (1.0 + exp(-(worth[p] - best) / EVAL_SCALE))

cdef void ln_scores(const void* st, double* out) noexcept nogil:
    # LN-98: the analysis score is a seat's VP as the end of the game counts them
    # (LN-75 to LN-80): final at the end, as if the game ended now before.
    cdef const LNState* s = <const LNState*>st
    cdef int vp[LN_MAX_PLAYERS]
    cdef int poverty[LN_MAX_PLAYERS]
    cdef int boroughs[LN_MAX_PLAYERS]
    cdef int top_card[LN_MAX_PLAYERS]
    cdef int p
    if s.phase == PH_OVER:
        for p in range(s.players):
            out[p] = s.final_vp[p]
        return
    final_scores(s, vp, poverty, boroughs, top_card)
    for p in range(s.players):
        out[p] = vp[p]

cdef void ln_hidden_counts(const void* st, int observer, int* out) noexcept nogil:
    # LN-99: beliefs count the places redeal deals again (LN-85 to LN-87).
    cdef const LNState* s = <const LNState*>st
    cdef int p, v, i
    memset(out, 0, sizeof(int) * LN_PLACES * MAX_V)
    for p in range(s.players):
        if p == observer:
            continue
        for v in range(NV):
            out[p * MAX_V + v] = s.hand[p][v]
    for v in range(NV):
        out[LN_DECK * MAX_V + v] = s.deck[v]
    if observer != s.uni_owner:
        for i in range(s.top_n):
            out[LN_TOP * MAX_V + s.top[i]] += 1
    if s.look_n > 0 and s.active != observer:
        for i in range(s.look_n):
            out[LN_LOOK * MAX_V + s.look[i]] += 1

game_def_beliefs(&LN_DEF, ln_hidden_counts, LN_PLACES, MAX_V)

# ------------------------------------------------ features for a learned evaluation
# Not rules: what a learned estimate of a seat's chance to win reads (python -m fagin.train,
# seeds/london.md, "The bot and the search").  Defined once, here, and read both by the
# trainer (features()) and by the search's learned evaluation.  Each reads only what every
# seat sees (LN-83 to LN-86): money, loans, VP, poverty, hand sizes, the Building Displays,
# the boroughs and the deck's size; never a hand's cards, so twins that differ only in
# hidden cards have equal features.
cdef enum:
    LN_SEAT_FEATURES = 10       # per seat, each taken relative to the best other seat
    LN_FEATURES = 13            # those, then the game's phase, the lead by phase, whose turn

FEATURE_NAMES = ("vp_now", "money", "loans", "hand", "poverty", "boroughs", "face_up_cards",
                 "yield_per_run", "underground", "worth", "deck_left", "worth_by_deck", "to_act")
# The feature that measures the game's progress: the share of the deck still to draw (1 at the
# start, 0 at the end); python -m fagin.train's mid-game figures take a third to two thirds.
PROGRESS_FEATURE = "deck_left"

cdef int DECK_TOTAL = 1         # cards of the deck at the start (set by _load_features)

cdef void seat_raw_features(const LNState* s, double* raw) noexcept nogil:
    """Each seat's own feature values, seat p's at raw[p * LN_SEAT_FEATURES:]."""
    cdef int vp[LN_MAX_PLAYERS]
    cdef int poverty[LN_MAX_PLAYERS]
    cdef int boroughs[LN_MAX_PLAYERS]
    cdef int top_card[LN_MAX_PLAYERS]
    cdef int p, i, b, up, under
    cdef double* r
    cdef double runs = deck_cards(s) / (EVAL_CARDS_PER_TURN * s.players) * EVAL_RUN_SHARE
    final_scores(s, vp, poverty, boroughs, top_card)
    for p in range(s.players):
        r = &raw[p * LN_SEAT_FEATURES]
        up = 0
        for i in range(s.pc_n[p]):
            if is_active_card(s, p, i):
                up += 1
        under = 0
        for b in range(NB):
            if s.owner[b] == p and s.underground[b]:
                under += 1
        r[0] = vp[p]
        r[1] = s.money[p]
        r[2] = s.loans[p]
        r[3] = s.hand_n[p]
        r[4] = poverty[p]
        r[5] = boroughs[p]
        r[6] = up
        r[7] = future_yield(s, p, 1.0)
        r[8] = under
        r[9] = vp[p] + EVAL_HAND * s.hand_n[p] + future_yield(s, p, runs)

cdef void ln_features(const void* st, double* out) noexcept nogil:
    """The features of every seat, seat p's LN_FEATURES values at out[p * LN_FEATURES:]: each
    seat feature minus the largest other seat's value, then the share of the deck still to
    draw, the worth lead times that share, and 1 for the seat to act."""
    cdef const LNState* s = <const LNState*>st
    cdef double raw[LN_MAX_PLAYERS * LN_SEAT_FEATURES]
    cdef double deck = deck_cards(s) / <double>DECK_TOTAL
    cdef int p
    cdef double* f
    seat_raw_features(s, raw)
    learned_relative(raw, s.players, LN_SEAT_FEATURES, out, LN_FEATURES)
    for p in range(s.players):
        f = &out[p * LN_FEATURES]
        f[LN_SEAT_FEATURES] = deck
        f[LN_SEAT_FEATURES + 1] = f[9] * deck
        f[LN_SEAT_FEATURES + 2] = 1.0 if s.active == p else 0.0

def _load_features():
    global DECK_TOTAL
    cdef int v, n = 0
    for v in range(NV):
        n += V_COPIES[v]
    DECK_TOTAL = n if n > 0 else 1

_load_features()

# The learned evaluation (GameDef.evaluate_learned): a logistic regression on the features
# above, one per player count, and the expected final margin (GameDef.margins_learned): a linear
# one on the same features, both fitted by python -m fagin.train and shipped as data
# (data/learned.json); loaded once at import into the shared kit's model (engines/learned.pxd).
cdef LearnedRoom LEARNED_ROOM

cdef void ln_evaluate_learned(const void* st, double* out) noexcept nogil:
    learned_room_evaluate(&LEARNED_ROOM, st, out)

cdef bint ln_margins_learned(const void* st, double* out) noexcept nogil:
    return learned_room_margins(&LEARNED_ROOM, st, out)

# LEARNED: the model document loaded (data/learned.json), or None.
_load_learned = learned_room(&LEARNED_ROOM, &LN_DEF, globals(), data_path(__file__, "learned.json"), FEATURE_NAMES,
                             "London", ln_evaluate_learned, ln_margins_learned)

cdef int ln_heuristic_action(const void* st, Rng* rng) noexcept nogil:
    return heuristic_choice(<const LNState*>st, rng)

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
            hidden_letters[V_LETTER[v]] += s.hand[p][v] - s.known[p][v]
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
        h = mix64(h, <uint64_t>(EV_TOP * 256 + V_LETTER[s.top[i]]))
    for i in range(s.look_n):
        h = mix64(h, <uint64_t>(EV_LOOKED * 256 + V_LETTER[s.look[i]]))
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
        s.deck[v] = V_COPIES[v]
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
