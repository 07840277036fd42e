# London: the card and board tables (every card version's costs, scores and powers, every
# borough's), filled from data/ (checked by components.py) when the engine is imported.
# Included by engine.pyx, so that its functions compile (and inline) with the rules.

# Each CARD_* table holds a value per card version (its index in cards.json).

cdef int NV = 0                                # card versions
cdef int N_KINDS = 0                           # kinds
cdef int CARD_KIND[MAX_V]
cdef int CARD_LETTER[MAX_V]                    # 0 A, 1 B, 2 C
cdef int CARD_COLOUR[MAX_V]
cdef int CARD_COPIES[MAX_V]
cdef int CARD_COST[MAX_V]                      # play cost in £
cdef int CARD_VP[MAX_V]
cdef int CARD_STONE_BASE[MAX_V]                # stone base: may be placed (LN-27)
# Powers from the hand or in force while face up and uncovered.
cdef int CARD_PLACED_WITHOUT_EXPENDING[MAX_V]  # placed without expending a card (Coffee House)
cdef int CARD_SCHOOL_FEE[MAX_V]                # £ to expend any colour (School, LN-47)
cdef int CARD_UNIVERSITY_LOOK[MAX_V]           # cards University of London shows (LN-50)
cdef int CARD_STOCK_EXCHANGE[MAX_V]            # Stock Exchange (LN-51)
cdef int CARD_LOAN[MAX_V]                      # what a loan gives (Bank of England, LN-24)
cdef int CARD_SHOPS_STORE[MAX_V]               # £ a Shops stores per placement (LN-48)
cdef int CARD_PUB[MAX_V]                       # hand not counted in Run City poverty (LN-52)
cdef int CARD_TURN_DRAW_MIN[MAX_V]             # Parliament: cards at the turn's start (LN-49); max 0 = no power
cdef int CARD_TURN_DRAW_MAX[MAX_V]
cdef int CARD_HAND_DRAW[MAX_V]                 # Huguenots / Jewish Refugees: cards taken (LN-33)
cdef int CARD_WREN[MAX_V]                      # Wren: placements without expending (LN-35)
# The activation (LN-36 to LN-39, LN-45 to LN-66).
cdef int CARD_ACTIVATES[MAX_V]                 # has an activation
cdef int CARD_ACTIVATION_COST[MAX_V]           # AC_*
cdef int CARD_ACTIVATION_MONEY[MAX_V]          # £ for AC_MONEY
cdef int CARD_FLIPS[MAX_V]
cdef int CARD_GAIN_MONEY[MAX_V]
cdef int CARD_GAIN_VP[MAX_V]
cdef int CARD_DISCARD_POVERTY[MAX_V]
cdef int CARD_TAKE_POVERTY[MAX_V]
cdef int CARD_MONEY_PER_BOROUGH[MAX_V]         # £ per occupied borough of the set CARD_BOROUGH_SET
cdef int CARD_BOROUGH_SET[MAX_V]
cdef int CARD_MONEY_PER_CARD[MAX_V]            # £ per card of CARD_MONEY_COLOURS in the display
cdef int CARD_MONEY_COLOURS[MAX_V]             # colour bit mask
cdef int CARD_MONEY_COVERED[MAX_V]             # covered cards count
cdef int CARD_MONEY_FLIPPED[MAX_V]             # flipped cards count
cdef int CARD_VP_PER_CARD[MAX_V]
cdef int CARD_VP_COLOURS[MAX_V]
cdef int CARD_VP_COVERED[MAX_V]
cdef int CARD_VP_FLIPPED[MAX_V]
cdef int CARD_COLLECTS_STORE[MAX_V]            # takes the money stored on it (Shops)
cdef int CARD_OTHERS_PAY[MAX_V]                # £ every other player pays (Lloyds of London)
cdef int CARD_FIRE_BRIGADE[MAX_V]              # £ per borough every other player pays the bank (Fire Brigade)
cdef int CARD_GIVE_POVERTY[MAX_V]              # poverty moved to a chosen player (Police Force)
cdef int CARD_OPPONENT_POVERTY[MAX_V]          # poverty a chosen player takes (Fleet Street)
cdef int CARD_PRISON[MAX_V]                    # cards a prison may take
cdef int CARD_PRISON_POVERTY[MAX_V]
cdef int CARD_PRISON_VP[MAX_V]
cdef int CARD_WORKHOUSE[MAX_V]
cdef int CARD_PAUPER_MONEY[MAX_V]
cdef int CARD_PAUPER_POVERTY[MAX_V]
cdef int CARD_UNDERGROUND[MAX_V]               # counters placed
cdef int CARD_WHITEHALL[MAX_V]
cdef int CARD_HOSPITAL[MAX_V]
cdef int CARD_COFFEE_HOUSE[MAX_V]              # places a Display card on itself
cdef int CARD_IS_PAUPER[MAX_V]                 # a Paupers card (grey)
cdef int K_FIRST[MAX_K]                        # lowest version of each kind

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
    memset(CARD_KIND, 0, sizeof(CARD_KIND))
    memset(CARD_LETTER, 0, sizeof(CARD_LETTER))
    memset(CARD_COLOUR, 0, sizeof(CARD_COLOUR))
    memset(CARD_COPIES, 0, sizeof(CARD_COPIES))
    memset(CARD_COST, 0, sizeof(CARD_COST))
    memset(CARD_VP, 0, sizeof(CARD_VP))
    memset(CARD_STONE_BASE, 0, sizeof(CARD_STONE_BASE))
    memset(CARD_PLACED_WITHOUT_EXPENDING, 0, sizeof(CARD_PLACED_WITHOUT_EXPENDING))
    memset(CARD_SCHOOL_FEE, 0, sizeof(CARD_SCHOOL_FEE))
    memset(CARD_UNIVERSITY_LOOK, 0, sizeof(CARD_UNIVERSITY_LOOK))
    memset(CARD_STOCK_EXCHANGE, 0, sizeof(CARD_STOCK_EXCHANGE))
    memset(CARD_LOAN, 0, sizeof(CARD_LOAN))
    memset(CARD_SHOPS_STORE, 0, sizeof(CARD_SHOPS_STORE))
    memset(CARD_PUB, 0, sizeof(CARD_PUB))
    memset(CARD_TURN_DRAW_MIN, 0, sizeof(CARD_TURN_DRAW_MIN))
    memset(CARD_TURN_DRAW_MAX, 0, sizeof(CARD_TURN_DRAW_MAX))
    memset(CARD_HAND_DRAW, 0, sizeof(CARD_HAND_DRAW))
    memset(CARD_WREN, 0, sizeof(CARD_WREN))
    memset(CARD_ACTIVATES, 0, sizeof(CARD_ACTIVATES))
    memset(CARD_ACTIVATION_COST, 0, sizeof(CARD_ACTIVATION_COST))
    memset(CARD_ACTIVATION_MONEY, 0, sizeof(CARD_ACTIVATION_MONEY))
    memset(CARD_FLIPS, 0, sizeof(CARD_FLIPS))
    memset(CARD_GAIN_MONEY, 0, sizeof(CARD_GAIN_MONEY))
    memset(CARD_GAIN_VP, 0, sizeof(CARD_GAIN_VP))
    memset(CARD_DISCARD_POVERTY, 0, sizeof(CARD_DISCARD_POVERTY))
    memset(CARD_TAKE_POVERTY, 0, sizeof(CARD_TAKE_POVERTY))
    memset(CARD_MONEY_PER_BOROUGH, 0, sizeof(CARD_MONEY_PER_BOROUGH))
    memset(CARD_BOROUGH_SET, 0, sizeof(CARD_BOROUGH_SET))
    memset(CARD_MONEY_PER_CARD, 0, sizeof(CARD_MONEY_PER_CARD))
    memset(CARD_MONEY_COLOURS, 0, sizeof(CARD_MONEY_COLOURS))
    memset(CARD_MONEY_COVERED, 0, sizeof(CARD_MONEY_COVERED))
    memset(CARD_MONEY_FLIPPED, 0, sizeof(CARD_MONEY_FLIPPED))
    memset(CARD_VP_PER_CARD, 0, sizeof(CARD_VP_PER_CARD))
    memset(CARD_VP_COLOURS, 0, sizeof(CARD_VP_COLOURS))
    memset(CARD_VP_COVERED, 0, sizeof(CARD_VP_COVERED))
    memset(CARD_VP_FLIPPED, 0, sizeof(CARD_VP_FLIPPED))
    memset(CARD_COLLECTS_STORE, 0, sizeof(CARD_COLLECTS_STORE))
    memset(CARD_OTHERS_PAY, 0, sizeof(CARD_OTHERS_PAY))
    memset(CARD_FIRE_BRIGADE, 0, sizeof(CARD_FIRE_BRIGADE))
    memset(CARD_GIVE_POVERTY, 0, sizeof(CARD_GIVE_POVERTY))
    memset(CARD_OPPONENT_POVERTY, 0, sizeof(CARD_OPPONENT_POVERTY))
    memset(CARD_PRISON, 0, sizeof(CARD_PRISON))
    memset(CARD_PRISON_POVERTY, 0, sizeof(CARD_PRISON_POVERTY))
    memset(CARD_PRISON_VP, 0, sizeof(CARD_PRISON_VP))
    memset(CARD_WORKHOUSE, 0, sizeof(CARD_WORKHOUSE))
    memset(CARD_PAUPER_MONEY, 0, sizeof(CARD_PAUPER_MONEY))
    memset(CARD_PAUPER_POVERTY, 0, sizeof(CARD_PAUPER_POVERTY))
    memset(CARD_UNDERGROUND, 0, sizeof(CARD_UNDERGROUND))
    memset(CARD_WHITEHALL, 0, sizeof(CARD_WHITEHALL))
    memset(CARD_HOSPITAL, 0, sizeof(CARD_HOSPITAL))
    memset(CARD_COFFEE_HOUSE, 0, sizeof(CARD_COFFEE_HOUSE))
    memset(CARD_IS_PAUPER, 0, sizeof(CARD_IS_PAUPER))


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
        CARD_KIND[v] = kind_of[v]
        CARD_LETTER[v] = LETTERS.index(c.deck)
        CARD_COLOUR[v] = COLOURS.index(c.colour)
        CARD_COPIES[v] = c.count
        CARD_COST[v] = c.cost
        CARD_VP[v] = c.vp
        CARD_STONE_BASE[v] = 1 if c.base else 0
        CARD_IS_PAUPER[v] = 1 if c.colour == "grey" else 0
        for p in c.play:
            if p.code == "placed_without_expending":
                CARD_PLACED_WITHOUT_EXPENDING[v] = 1
            else:
                raise ValueError(f"cards.json: {c.id}: play power {p.code} is not implemented")
        for p in c.permanent:
            if p.code == "expend_any_colour_for_money":
                CARD_SCHOOL_FEE[v] = p["amount"]
            elif p.code == "look_at_deck_when_drawing":
                if p["cards"] > LOOK_CAP:
                    raise ValueError(f"cards.json: {c.id}: the engine shows at most {LOOK_CAP} cards")
                CARD_UNIVERSITY_LOOK[v] = p["cards"]
            elif p.code == "swap_hand_with_display":
                if p["per_turn"] != 1:
                    raise ValueError(f"cards.json: {c.id}: the engine allows one swap a turn")
                CARD_STOCK_EXCHANGE[v] = 1
            elif p.code == "loan_amount":
                CARD_LOAN[v] = p["amount"]
            elif p.code == "store_money_on_card":
                CARD_SHOPS_STORE[v] = p["amount"]
            elif p.code == "hand_not_counted_for_poverty":
                CARD_PUB[v] = 1
            elif p.code == "draw_count_choice":
                CARD_TURN_DRAW_MIN[v] = p["min"]
                CARD_TURN_DRAW_MAX[v] = p["max"]
            else:
                raise ValueError(f"cards.json: {c.id}: permanent power {p.code} is not implemented")
        for p in c.hand:
            if p.code == "discard_to_draw":
                CARD_HAND_DRAW[v] = p["cards"]
            elif p.code == "discard_to_place_any_colour":
                CARD_WREN[v] = p["cards"]
            else:
                raise ValueError(f"cards.json: {c.id}: hand power {p.code} is not implemented")
        a = c.activation
        if a is None:
            continue
        CARD_ACTIVATES[v] = 1
        CARD_FLIPS[v] = 1 if a.flip else 0
        if a.cost.kind == "none":
            CARD_ACTIVATION_COST[v] = AC_NONE
        elif a.cost.kind == "money":
            CARD_ACTIVATION_COST[v] = AC_MONEY
            CARD_ACTIVATION_MONEY[v] = a.cost.amount
        elif a.cost.colour == "any":
            CARD_ACTIVATION_COST[v] = AC_ANY
        elif a.cost.colour == "blue":
            CARD_ACTIVATION_COST[v] = AC_BLUE
        else:
            raise ValueError(f"cards.json: {c.id}: activation cost {a.cost} is not implemented")
        specials = 0
        for p in a.effects:
            if p.code == "gain_money":
                CARD_GAIN_MONEY[v] += p["amount"]
            elif p.code == "gain_vp":
                CARD_GAIN_VP[v] += p["amount"]
            elif p.code == "discard_poverty":
                CARD_DISCARD_POVERTY[v] += p["amount"]
            elif p.code == "take_poverty":
                CARD_TAKE_POVERTY[v] += p["amount"]
            elif p.code == "money_per_borough":
                CARD_MONEY_PER_BOROUGH[v] = p["amount"]
                CARD_BOROUGH_SET[v] = ("all", "thames", "north", "south").index(p["boroughs"])
            elif p.code in ("money_per_card_in_display", "vp_per_card_in_display"):
                mask = sum(1 << COLOURS.index(col) for col in p["colours"])
                if p.code == "money_per_card_in_display":
                    CARD_MONEY_PER_CARD[v], CARD_MONEY_COLOURS[v] = p["amount"], mask
                    CARD_MONEY_COVERED[v], CARD_MONEY_FLIPPED[v] = int(p["covered"]), int(p["flipped"])
                else:
                    CARD_VP_PER_CARD[v], CARD_VP_COLOURS[v] = p["amount"], mask
                    CARD_VP_COVERED[v], CARD_VP_FLIPPED[v] = int(p["covered"]), int(p["flipped"])
            elif p.code == "collect_money_on_card":
                CARD_COLLECTS_STORE[v] = 1
            elif p.code == "others_pay_you":
                CARD_OTHERS_PAY[v] = p["amount"]
            elif p.code == "others_pay_bank_per_borough":
                CARD_FIRE_BRIGADE[v] = p["amount"]
            elif p.code == "give_poverty":
                CARD_GIVE_POVERTY[v] = p["amount"]
                specials += 1
            elif p.code == "opponent_takes_poverty":
                CARD_OPPONENT_POVERTY[v] = p["amount"]
                specials += 1
            elif p.code == "expend_cards_for_poverty":
                CARD_PRISON[v] = p["max_cards"]
                CARD_PRISON_POVERTY[v] = p["poverty_per_card"]
                CARD_PRISON_VP[v] = p["vp_per_card"]
                specials += 1
            elif p.code == "expend_paupers":
                CARD_WORKHOUSE[v] = 1
                CARD_PAUPER_MONEY[v] = p["money_per_card"]
                CARD_PAUPER_POVERTY[v] = p["poverty_per_card"]
                specials += 1
            elif p.code == "place_underground":
                CARD_UNDERGROUND[v] = p["markers"]
                specials += 1
            elif p.code == "reactivate_another":
                CARD_WHITEHALL[v] = 1
                specials += 1
            elif p.code == "flip_in_place_of_another":
                CARD_HOSPITAL[v] = 1
                specials += 1
            elif p.code == "place_from_display_on_this":
                CARD_COFFEE_HOUSE[v] = 1
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
        LETTER_ALLOWED[CARD_LETTER[v]][v] = 1


_load()
_letter_masks()
