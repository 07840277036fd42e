# London: what the search knows besides the rules: the hand-written evaluation, the
# scores, the beliefs' counts and the learned evaluation's features.
# Included by engine.pyx, so that its functions compile (and inline) with the rules.

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
        if not CARD_ACTIVATES[v] or CARD_FLIPS[v] or CARD_HOSPITAL[v] or (s.pc_flags[p][i] & (F_DOWN | F_COVERED)):
            continue
        y = CARD_GAIN_MONEY[v] + CARD_OTHERS_PAY[v] * (s.players - 1) + s.pc_money[p][i]
        if CARD_MONEY_PER_BOROUGH[v]:
            y += CARD_MONEY_PER_BOROUGH[v] * boroughs_in_set(s, p, CARD_BOROUGH_SET[v])
        if CARD_MONEY_PER_CARD[v]:
            y += CARD_MONEY_PER_CARD[v] * count_display_cards(s, p, CARD_MONEY_COLOURS[v], CARD_MONEY_COVERED[v],
                                                              CARD_MONEY_FLIPPED[v])
        if CARD_ACTIVATION_COST[v] == AC_MONEY:
            y -= CARD_ACTIVATION_MONEY[v]
        y *= EVAL_MONEY
        y += CARD_GAIN_VP[v] + EVAL_POVERTY * (CARD_DISCARD_POVERTY[v] - CARD_TAKE_POVERTY[v])
        if CARD_VP_PER_CARD[v]:
            y += CARD_VP_PER_CARD[v] * count_display_cards(s, p, CARD_VP_COLOURS[v],
                                                           CARD_VP_COVERED[v], CARD_VP_FLIPPED[v])
        if CARD_ACTIVATION_COST[v] == AC_ANY or CARD_ACTIVATION_COST[v] == AC_BLUE:
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
        n += CARD_COPIES[v]
    DECK_TOTAL = n if n > 0 else 1

_load_features()
