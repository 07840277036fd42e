# London's rule-based player, without the GIL: the heuristic bot (heuristic.py is
# its Python face) and the search's rollout policy (GameDef.rollout_action).
# Included by engine.pyx just before the GameDef table.  Not a rule.
#
# What it reads.  It is handed the whole (real or determinized) state but looks
# only at what the deciding seat knows (LN-83 to LN-86): every seat's money,
# loans, VP, poverty and hand size; every Building Display; the Card Display;
# who owns which borough and where the Underground runs; how many cards the
# deck holds; the phase and turn fields; its own hand, and the cards University
# of London shows it while it looks.  Never another seat's hand or knowledge,
# the deck's make-up, or the order of put-back cards.
#
# The play, in VP-equivalents (a pound is worth about 0.4 VP during the game:
# it buys buildings and land; a poverty point about 1.5 VP at the end, LN-79):
# build money engines and cheap VP cards early, high-VP buildings when the
# money is there, buy land whenever it is affordable (VP, cards, and one
# poverty point fewer at every later Run City, LN-44), run the city when the
# activatable cards yield more than the poverty the run adds (stacks plus hand
# minus boroughs), keep the hand small before a run, take a good card from the
# Card Display but otherwise the deck, Take Three Cards when the hand is thin,
# avoid loans unless the gain pays for them (a loan costs about 7 VP at the
# end, LN-78), and cover flipped cards rather than start new stacks.  Every
# legal action gets a score; the best is played, ties broken at random.



cdef double HX_MONEY = 0.4          # VP per £ during the game
cdef double HX_POVERTY = 1.5        # VP per poverty point
cdef double HX_LOAN = 3.0           # a loan's net cost in VP beyond the money it gives (7 VP less £10 at HX_MONEY)
cdef double HX_CARD = 0.9           # an unknown card from the deck
cdef double HX_NONE = -1e300        # "no such card" in the searches for a best or worst one

cdef enum:
    RO_UNIFORM = 20                 # rollouts: one decision in twenty is uniform, so that playouts stay diverse

cdef double HX_PERM[MAX_V]          # a permanent power's worth over a game
cdef double HX_STATIC_KEEP[MAX_V]   # a hand card's fixed worth, from its printed values alone


cdef void hx_init_tables() noexcept:
    cdef int v
    cdef double x, g
    for v in range(NV):
        x = 0.0
        if CARD_SCHOOL_FEE[v]:
            x += 2.0
        if CARD_UNIVERSITY_LOOK[v]:
            x += 1.5
        if CARD_STOCK_EXCHANGE[v]:
            x += 1.0
        if CARD_LOAN[v]:
            x += 0.5
        if CARD_SHOPS_STORE[v]:
            x += 1.5
        if CARD_PUB[v]:
            x += 4.0
        if CARD_TURN_DRAW_MAX[v]:
            x += 1.5
        HX_PERM[v] = x
        if CARD_IS_PAUPER[v]:
            HX_STATIC_KEEP[v] = -1.0
        elif CARD_WREN[v]:
            HX_STATIC_KEEP[v] = 1.5
        elif CARD_HAND_DRAW[v]:
            HX_STATIC_KEEP[v] = 1.0
        elif not CARD_STONE_BASE[v]:
            HX_STATIC_KEEP[v] = 0.0
        else:
            x = CARD_VP[v] + HX_PERM[v] - HX_MONEY * CARD_COST[v]
            if CARD_ACTIVATES[v]:
                g = HX_MONEY * CARD_GAIN_MONEY[v] + CARD_GAIN_VP[v] + HX_POVERTY * CARD_DISCARD_POVERTY[v] \
                    - HX_POVERTY * CARD_TAKE_POVERTY[v] + 1.0
                x += g * (1.0 if CARD_FLIPS[v] else 2.0)
            HX_STATIC_KEEP[v] = 0.5 + 0.5 * hx_max(0.0, x)

hx_init_tables()


ctypedef struct HX:
    # The deciding seat's view of one decision, with the hand cards' worth cached.
    const LNState* s
    int me
    int money
    int hand_n
    int pov
    bint school
    bint pub
    double turns_left               # turns of mine still to come (a turn takes about 1.4 cards off the deck)
    double runs_left
    # The decision's hand, each version once in ascending order: the loops over the hand visit
    # these few instead of every version, in the same order (so ties break as before).
    int hand_v[MAX_V]
    int hand_kinds
    # Worths asked for again and again within one decision, each computed once.
    double keep[MAX_V]
    double placed[MAX_V]
    double where_cost
    unsigned char have_keep[MAX_V]
    unsigned char have_placed[MAX_V]
    bint have_where


cdef inline double hx_max(double a, double b) noexcept nogil:
    # fmax without the library call (no NaN reaches these scores)
    return a if a > b else b


cdef inline double hx_min(double a, double b) noexcept nogil:
    return a if a < b else b


cdef void hx_view(HX* h, const LNState* s) noexcept nogil:
    cdef int v
    h.s = s
    h.me = s.active
    h.money = s.money[h.me]
    h.hand_n = s.hand_n[h.me]
    h.pov = s.poverty[h.me]
    h.school = s.perm[8 * h.me + P_SCHOOL] > 0
    h.pub = s.perm[8 * h.me + P_PUB] > 0
    h.turns_left = 0.0 if s.last_round else hx_max(0.0, deck_cards(s) / 1.4 / s.players)
    h.runs_left = h.turns_left / 3.0
    memset(h.have_keep, 0, sizeof(h.have_keep))
    memset(h.have_placed, 0, sizeof(h.have_placed))
    h.have_where = False
    h.hand_kinds = 0
    v = hand_next(s, h.me, 0)
    while v >= 0:
        h.hand_v[h.hand_kinds] = v
        h.hand_kinds += 1
        v = hand_next(s, h.me, v + 1)


cdef double hx_act_gain(HX* h, int v, int i, bint with_cost) noexcept nogil:
    """What one activation of version v (card i of the Display, or -1) yields now."""
    cdef const LNState* s = h.s
    cdef int me = h.me, money = CARD_GAIN_MONEY[v], vp = CARD_GAIN_VP[v], w, n, j, r, cheap, k
    cdef double x, best, g
    if CARD_MONEY_PER_BOROUGH[v]:
        money += CARD_MONEY_PER_BOROUGH[v] * boroughs_in_set(s, me, CARD_BOROUGH_SET[v])
    if CARD_MONEY_PER_CARD[v]:
        money += CARD_MONEY_PER_CARD[v] * count_display_cards(s, me, CARD_MONEY_COLOURS[v], CARD_MONEY_COVERED[v],
                                                              CARD_MONEY_FLIPPED[v])
    if CARD_COLLECTS_STORE[v] and i >= 0:
        money += s.pc_money[me][i]
    if CARD_OTHERS_PAY[v]:
        money += CARD_OTHERS_PAY[v] * (s.players - 1)
    if CARD_VP_PER_CARD[v]:
        vp += CARD_VP_PER_CARD[v] * count_display_cards(s, me, CARD_VP_COLOURS[v],
                                                        CARD_VP_COVERED[v], CARD_VP_FLIPPED[v])
    x = HX_MONEY * money + vp
    x += HX_POVERTY * (h.pov + 2 if h.pov + 2 < CARD_DISCARD_POVERTY[v] else CARD_DISCARD_POVERTY[v])
    x -= HX_POVERTY * CARD_TAKE_POVERTY[v]
    if CARD_UNDERGROUND[v]:
        x += 2.0 * CARD_UNDERGROUND[v] * 0.6
    if CARD_OPPONENT_POVERTY[v]:
        x += 1.0
    if CARD_GIVE_POVERTY[v] and h.pov > 0:
        x += HX_POVERTY
    if CARD_PRISON[v]:
        cheap = 0
        for j in range(h.hand_kinds):
            w = h.hand_v[j]
            if HX_STATIC_KEEP[w] < 1.5:
                cheap += s.hand[me][w]
        k = cheap if cheap < CARD_PRISON[v] else CARD_PRISON[v]
        x += k * (HX_POVERTY * (1 if h.pov > 0 else 0) + CARD_PRISON_VP[v] + 0.5)
    if CARD_WORKHOUSE[v]:
        for j in range(h.hand_kinds):
            w = h.hand_v[j]
            if CARD_IS_PAUPER[w]:
                x += s.hand[me][w] * (HX_MONEY + HX_POVERTY + 1.0)
    if CARD_FIRE_BRIGADE[v]:
        n = 0
        for j in range(NB):
            if s.owner[j] >= 0 and s.owner[j] != me:
                n += 1
        x += 0.3 * n
    if CARD_COFFEE_HOUSE[v]:
        best = 0.0
        for r in range(2):
            for j in range(s.display_n[r]):
                w = s.display[r][j]
                if CARD_STONE_BASE[w]:
                    best = hx_max(best, 2.0 * HX_STATIC_KEEP[w])
        x += best
    if CARD_WHITEHALL[v]:
        best = 0.0
        for j in range(s.pc_n[me]):
            w = s.pc_version[me][j]
            if j != i and (s.pc_flags[me][j] & F_ACTIVATED) and not (s.pc_flags[me][j] & F_COVERED) \
                    and CARD_ACTIVATES[w] and not CARD_HOSPITAL[w]:
                best = hx_max(best, hx_act_gain(h, w, j, False))
        x += best
    if with_cost:
        if CARD_ACTIVATION_COST[v] == AC_MONEY:
            x -= HX_MONEY * CARD_ACTIVATION_MONEY[v] + (HX_LOAN if h.money < CARD_ACTIVATION_MONEY[v] else 0.0)
        elif CARD_ACTIVATION_COST[v] == AC_ANY or CARD_ACTIVATION_COST[v] == AC_BLUE:
            # A card from the hand: little lost if it is a weak one, and one card fewer for Run City's poverty.
            x -= hx_max(0.0, hx_worst_static_keep(h, CARD_ACTIVATION_COST[v] == AC_BLUE)) - 0.5
    return x


cdef double hx_worst_static_keep(HX* h, bint blue) noexcept nogil:
    """The hand card cheapest to expend, by its fixed worth (0 with none)."""
    cdef int w, j
    cdef double best = HX_NONE
    for j in range(h.hand_kinds):
        w = h.hand_v[j]
        if not blue or CARD_COLOUR[w] == C_BLUE:
            if best == HX_NONE or HX_STATIC_KEEP[w] < best:
                best = HX_STATIC_KEEP[w]
    return 0.0 if best == HX_NONE else best


cdef double hx_placed_value(HX* h, int v) noexcept nogil:
    """What version v face up in the Building Display is worth over the rest of the game."""
    cdef double x, g, uses
    if h.have_placed[v]:
        return h.placed[v]
    x = CARD_VP[v] + HX_PERM[v] * hx_min(1.0, h.turns_left / 8.0)
    if CARD_ACTIVATES[v] and not CARD_HOSPITAL[v]:
        g = hx_act_gain(h, v, -1, True)
        if g > 0:
            uses = 1.0 if CARD_FLIPS[v] else hx_max(1.0, hx_min(3.0, h.runs_left))
            x += g * uses * (0.8 if h.turns_left > 1 else 0.0)
    if CARD_HOSPITAL[v]:
        x += 1.0
    h.placed[v] = x
    h.have_placed[v] = True
    return x


cdef double hx_keep(HX* h, int v) noexcept nogil:
    """How much the seat would miss hand card v."""
    cdef double x
    if h.have_keep[v]:
        return h.keep[v]
    if CARD_IS_PAUPER[v]:
        x = -1.0
    elif CARD_WREN[v]:
        x = 1.5
    elif CARD_HAND_DRAW[v]:
        x = 1.0
    elif not CARD_STONE_BASE[v]:
        x = 0.0
    else:
        x = 0.5 + 0.5 * hx_max(0.0, hx_placed_value(h, v) - HX_MONEY * CARD_COST[v])
    h.keep[v] = x
    h.have_keep[v] = True
    return x


cdef double hx_worst_keep(HX* h, bint blue) noexcept nogil:
    cdef int w, j
    cdef double best = HX_NONE, k
    for j in range(h.hand_kinds):
        w = h.hand_v[j]
        if not blue or CARD_COLOUR[w] == C_BLUE:
            k = hx_keep(h, w)
            if best == HX_NONE or k < best:
                best = k
    return 0.0 if best == HX_NONE else best


cdef inline double hx_new_stack_cost(HX* h) noexcept nogil:
    return HX_POVERTY * hx_min(h.runs_left, 4.0) * 0.5


cdef double hx_cover_cost(HX* h, int i) noexcept nogil:
    """What covering stack top i loses."""
    cdef int v = h.s.pc_version[h.me][i]
    cdef double x, g
    if h.s.pc_flags[h.me][i] & F_DOWN:
        return 0.0
    x = HX_PERM[v] * hx_min(1.0, h.turns_left / 8.0)
    if CARD_ACTIVATES[v]:
        g = hx_act_gain(h, v, i, True)
        if g > 0:
            x += g * (1.0 if CARD_FLIPS[v] else hx_max(1.0, hx_min(3.0, h.runs_left)))
    if CARD_SHOPS_STORE[v]:
        x += HX_MONEY * h.s.pc_money[h.me][i]
    return x


cdef double hx_best_where_cost(HX* h) noexcept nogil:
    cdef double best
    cdef int i
    if h.have_where:
        return h.where_cost
    best = hx_new_stack_cost(h)
    for i in range(h.s.pc_n[h.me]):
        if not (h.s.pc_flags[h.me][i] & (F_COVERED | F_PLACED_NOW)):
            best = hx_min(best, hx_cover_cost(h, i))
    h.where_cost = best
    h.have_where = True
    return best


cdef double hx_cheapest_expend(HX* h, int v) noexcept nogil:
    """The least worth among the hand cards that could pay for placing v."""
    cdef int w, k, j
    cdef double best = HX_NONE, c
    for j in range(h.hand_kinds):
        w = h.hand_v[j]
        k = h.s.hand[h.me][w] - (1 if w == v else 0)
        if k <= 0:
            continue
        if CARD_COLOUR[w] == CARD_COLOUR[v]:
            c = hx_keep(h, w)
        elif h.school:
            c = hx_keep(h, w) + HX_MONEY
        else:
            continue
        if best == HX_NONE or c < best:
            best = c
    return 0.0 if best == HX_NONE else best


cdef double hx_place_score(HX* h, int v) noexcept nogil:
    """Placing hand card v now: its worth less its £ cost (loans), the card expended and where it goes."""
    cdef int cost = CARD_COST[v]
    cdef double x = hx_placed_value(h, v) - HX_MONEY * cost
    if cost > h.money:
        x -= HX_LOAN * ((cost - h.money + 9) // 10)
    if not CARD_PLACED_WITHOUT_EXPENDING[v]:
        x -= hx_max(0.0, hx_cheapest_expend(h, v)) * 0.6
    x -= hx_best_where_cost(h)
    return x


cdef double hx_run_score(HX* h) noexcept nogil:
    """Running the city now: the good activations less the poverty the run adds (LN-44)."""
    cdef const LNState* s = h.s
    cdef int me = h.me, i, v, f, c, expends = 0, hand, delta
    cdef double gains = 0.0, g
    for i in range(s.pc_n[me]):
        v = s.pc_version[me][i]
        f = s.pc_flags[me][i]
        if f & (F_DOWN | F_COVERED) or not CARD_ACTIVATES[v] or CARD_HOSPITAL[v]:
            continue
        c = CARD_ACTIVATION_COST[v]
        if (c == AC_ANY or c == AC_BLUE) and h.hand_n - expends <= 0:
            continue
        if c == AC_BLUE and s.colour_n[4 * me + C_BLUE] == 0:
            continue
        g = hx_act_gain(h, v, i, True)
        if CARD_FLIPS[v] and h.turns_left > 2:
            g -= 0.3                # a flipped card is spent
        if g > 0:
            gains += g
            if c == AC_ANY or c == AC_BLUE:
                expends += 1
    hand = 0 if h.pub else h.hand_n - expends
    delta = s.stacks[me] + hand - boroughs_of(s, me)
    if delta < 0 and delta < -h.pov:
        delta = -h.pov
    return gains - HX_POVERTY * delta


cdef double hx_buy_score(HX* h, int b) noexcept nogil:
    cdef int cost = B_COST[b], room = HAND_LIMIT - h.hand_n
    cdef double x = B_VP[b] + HX_POVERTY * hx_min(h.runs_left, 6.0) * 0.7 - HX_MONEY * cost
    if room < 0:
        room = 0
    x += HX_CARD * (B_CARDS[b] if B_CARDS[b] < room else room) * (1.0 if h.turns_left > 2 else 0.2)
    if cost > h.money:
        x -= HX_LOAN * ((cost - h.money + 9) // 10) + 1.0
    return x


cdef bint hx_payable(HX* h, int v) noexcept nogil:
    """Whether the hand could pay to place v (as the seat judges it before choosing Play Cards)."""
    if CARD_PLACED_WITHOUT_EXPENDING[v]:
        return True
    return h.s.colour_n[4 * h.me + CARD_COLOUR[v]] >= 2 or (h.school and h.hand_n >= 2)


cdef double hx_play_action_score(HX* h) noexcept nogil:
    """Play Cards: the best placement plus the next two if they gain."""
    cdef double first = HX_NONE, second = HX_NONE, third = HX_NONE, x
    cdef int v, j
    for j in range(h.hand_kinds):
        v = h.hand_v[j]
        if CARD_STONE_BASE[v] and hx_payable(h, v):
            x = hx_place_score(h, v)
            if first == HX_NONE or x > first:
                third = second
                second = first
                first = x
            elif second == HX_NONE or x > second:
                third = second
                second = x
            elif third == HX_NONE or x > third:
                third = x
    if first == HX_NONE:
        return -5.0
    return first + (second if second != HX_NONE and second > 0 else 0.0) \
        + (third if third != HX_NONE and third > 0 else 0.0)


cdef double hx_counter_score(HX* h, int b) noexcept nogil:
    cdef const LNState* s = h.s
    cdef double x = 0.0
    cdef uint32_t net = 0
    cdef int j
    if s.owner[b] == h.me:
        x += 2.0
    elif s.owner[b] >= 0:
        x -= 0.5
    for j in range(NB):
        if s.underground[j]:
            net |= <uint32_t>1 << j
    if net != 0 and ((B_ADJ[b] & ~B_CROSS[b]) & net) == 0:
        x -= HX_MONEY * 3
    return x


cdef double hx_kind_score(HX* h, int ph, int r, int v, int k) noexcept nogil:
    cdef const LNState* s = h.s
    cdef int me = h.me, i, w, f, wanted
    cdef double x, best, c, g
    cdef bint down
    if r == R_TAKE_TOP or r == R_TAKE_BOTTOM or r == R_TAKE_LOOKED:
        # The deck by default (the game moves on); a Display card only when clearly good, and never
        # one the full hand would cut again.
        x = hx_keep(h, v) - (0.0 if r == R_TAKE_LOOKED else 1.5)
        if h.hand_n >= 8 and hx_keep(h, v) <= hx_worst_keep(h, False):
            x -= 5.0
        return x * (0.3 if h.turns_left <= 2 else 1.0)
    if r == R_PUT_BACK:
        return -hx_keep(h, v)                     # the worst goes back first (drawn next)
    if r == R_SWAP_TOP or r == R_SWAP_BOTTOM:
        return hx_keep(h, v) - hx_worst_keep(h, False)
    if r == R_GIVE or r == R_EXPEND or r == R_CUT:
        x = -hx_keep(h, v)
        if ph == PH_PRISON:
            w = s.pc_version[me][s.effect_card] if s.effect_card >= 0 else -1
            x += (HX_POVERTY if h.pov > 0 else 0.0) + (CARD_PRISON_VP[w] if w >= 0 else 0) + 0.5 - 1.0
        elif ph == PH_WORKHOUSE:
            x += 3.0
        return x
    if r == R_SCHOOL:
        return -hx_keep(h, v) - HX_MONEY
    if r == R_PLACE:
        return hx_place_score(h, v)
    if r == R_USE:
        if CARD_WREN[v]:
            # Wren pays off when two placements still need a card of their colour.
            wanted = 0
            for i in range(h.hand_kinds):
                w = h.hand_v[i]
                if CARD_STONE_BASE[w] and not CARD_PLACED_WITHOUT_EXPENDING[w] and hx_place_score(h, w) > 0:
                    wanted += 1
            return 1.0 if wanted >= 2 and s.wren_waivers == 0 else -1.0
        return 0.2 if h.hand_n <= 4 and h.turns_left > 3 else -1.0
    if r == R_ON_UP or r == R_ON_DOWN:
        down = r == R_ON_DOWN
        best = HX_NONE
        for i in range(s.pc_n[me]):
            f = s.pc_flags[me][i]
            if CARD_KIND[s.pc_version[me][i]] == k and not (f & (F_COVERED | F_PLACED_NOW)) \
                    and ((f & F_DOWN) != 0) == down:
                c = hx_cover_cost(h, i)
                if best == HX_NONE or c < best:
                    best = c
        return -(99.0 if best == HX_NONE else best)
    if r == R_ACTIVATE:
        best = HX_NONE
        for i in range(s.pc_n[me]):
            w = s.pc_version[me][i]
            if CARD_KIND[w] == k and not (s.pc_flags[me][i] & (F_DOWN | F_COVERED | F_ACTIVATED)):
                g = hx_act_gain(h, w, i, True)
                if CARD_WHITEHALL[w]:
                    g -= 0.5            # Whitehall after the others
                if best == HX_NONE or g > best:
                    best = g
        return -1.0 if best == HX_NONE else best
    if r == R_AGAIN:
        return hx_act_gain(h, v, -1, False)
    if r == R_KEEP:
        return hx_act_gain(h, v, -1, True) + 0.5
    if r == R_COFFEE_TOP or r == R_COFFEE_BOTTOM:
        return hx_placed_value(h, v) - HX_MONEY * CARD_COST[v] - (HX_LOAN if CARD_COST[v] > h.money else 0.0)
    return 0.0


cdef double hx_score(HX* h, int a) noexcept nogil:
    """The score of legal action a; the best is played."""
    cdef const LNState* s = h.s
    cdef int ph = s.phase, r, k, b
    cdef double x, best
    cdef uint32_t occ
    if a >= A_KINDS:
        r = (a - A_KINDS) // MAX_K
        k = (a - A_KINDS) % MAX_K
        return hx_kind_score(h, ph, r, K_FIRST[k], k)
    if ph == PH_LOOK:
        return 1.0 if a == A_LOOK else 0.0
    if ph == PH_SOURCE or ph == PH_TAKE_LOOKED:
        if a == A_DECK:
            # Late in the game the deck ends it sooner; the hand is poverty at the end (LN-77).
            return HX_CARD * (1.0 if h.turns_left > 2 else 0.1) - 0.1 * (h.hand_n - 6 if h.hand_n > 6 else 0)
        if a == A_STOP:
            return 0.5 if h.hand_n >= 7 else -1.0
        return 0.0
    if ph == PH_SWAP:
        return 1.5              # no swap unless a Display card beats the worst hand card by this
    if ph == PH_ACTION:
        if a == A_RUN_CITY:
            return hx_run_score(h)
        if a == A_PLAY_CARDS:
            return hx_play_action_score(h)
        if a == A_BUY_LAND:
            best = HX_NONE
            occ = occupied_mask(s)
            for b in range(NB):
                if _buyable(s, b, occ):
                    x = hx_buy_score(h, b)
                    if best == HX_NONE or x > best:
                        best = x
            return best + 0.5
        if a == A_TAKE_THREE:
            return (3 * HX_CARD - 0.6 * (h.hand_n - 3 if h.hand_n > 3 else 0)) * (0.2 if h.turns_left <= 2 else 1.0)
    if ph == PH_PLAY and a == A_DONE:
        return 0.3
    if ph == PH_RUN and a == A_DONE:
        return 0.0
    if ph == PH_WHERE and a == A_NEW_STACK:
        return -hx_new_stack_cost(h)
    if (ph == PH_PRISON or ph == PH_WORKHOUSE or ph == PH_HOSPITAL) and a == A_STOP:
        return 0.5 if ph == PH_HOSPITAL else 0.0
    if A_PLAYER <= a < A_PLAYER + 4:
        # Poverty to the seat with the least (it sets everyone's penalty, LN-79), then the leader.
        return -s.poverty[a - A_PLAYER] + 0.01 * s.vp[a - A_PLAYER]
    if A_BUY <= a < A_BUY + NB:
        return hx_buy_score(h, a - A_BUY)
    if A_COUNTER <= a < A_COUNTER + NB:
        return hx_counter_score(h, a - A_COUNTER)
    return 0.0


cdef int heuristic_choice(const LNState* s, Rng* rng) noexcept nogil:
    """The rule-based player's action at a decision (A_DONE if, impossibly, nothing is legal)."""
    cdef int buf[2 * MAX_K + 8]
    cdef int n = legal(s, buf), i, ties = 0, pick = A_DONE
    cdef double top = HX_NONE, x
    cdef double scores[2 * MAX_K + 8]
    cdef HX h
    if n <= 1:
        return buf[0] if n == 1 else A_DONE
    hx_view(&h, s)
    for i in range(n):
        scores[i] = hx_score(&h, buf[i])
        if top == HX_NONE or scores[i] > top:
            top = scores[i]
    for i in range(n):
        if scores[i] >= top - 1e-9:
            ties += 1
            if rng_below(rng, ties) == 0:
                pick = buf[i]
    return pick


cdef int ln_rollout_action(const void* st, Rng* rng) noexcept nogil:
    cdef const LNState* s = <const LNState*>st
    cdef int buf[2 * MAX_K + 8]
    cdef int n
    if rng_below(rng, RO_UNIFORM) == 0:
        n = legal(s, buf)
        return buf[rng_below(rng, n)] if n > 0 else A_DONE
    return heuristic_choice(s, rng)
