# London: the Run City action: activating the Building Displays' cards,
# their effects, flips and the poverty that follows.
# Included by engine.pyx, so that its functions compile (and inline) with the rules.

cdef inline bint whitehall_target(const LNState* s, int p, int i, int whitehall) noexcept nogil:
    cdef int v = s.pc_version[p][i]
    return i != whitehall and (s.pc_flags[p][i] & F_ACTIVATED) and not (s.pc_flags[p][i] & F_COVERED) \
        and CARD_ACTIVATES[v] and not CARD_HOSPITAL[v]

cdef bint can_activate(const LNState* s, int p, int i) noexcept nogil:
    cdef int v = s.pc_version[p][i], j, r, c
    if s.pc_flags[p][i] & (F_DOWN | F_COVERED | F_ACTIVATED):
        return False
    if not CARD_ACTIVATES[v] or CARD_HOSPITAL[v]:
        return False                        # a Hospital acts at the flip step (LN-43)
    c = CARD_ACTIVATION_COST[v]
    if c == AC_ANY and s.hand_n[p] == 0:
        return False
    if c == AC_BLUE and hand_colour(s, p, C_BLUE) == 0:
        return False
    if CARD_COFFEE_HOUSE[v]:
        for r in range(2):
            for j in range(s.display_n[r]):
                if CARD_STONE_BASE[s.display[r][j]]:
                    return True
        return False
    if CARD_WHITEHALL[v]:
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
    gain = CARD_GAIN_MONEY[v]
    if CARD_MONEY_PER_BOROUGH[v]:
        gain += CARD_MONEY_PER_BOROUGH[v] * boroughs_in_set(s, p, CARD_BOROUGH_SET[v])
    if CARD_MONEY_PER_CARD[v]:
        gain += CARD_MONEY_PER_CARD[v] * count_display_cards(s, p, CARD_MONEY_COLOURS[v], CARD_MONEY_COVERED[v],
                                                             CARD_MONEY_FLIPPED[v])
    if CARD_COLLECTS_STORE[v]:
        gain += s.pc_money[p][i]
        s.pc_money[p][i] = 0
    s.money[p] += gain
    if CARD_OTHERS_PAY[v]:
        for q in range(s.players):
            if q != p:
                pay(s, q, CARD_OTHERS_PAY[v])  # with loans if short (LN-23, LN-59)
                s.money[p] += CARD_OTHERS_PAY[v]
    s.vp[p] += CARD_GAIN_VP[v]
    if CARD_VP_PER_CARD[v]:
        s.vp[p] += CARD_VP_PER_CARD[v] * count_display_cards(s, p, CARD_VP_COLOURS[v],
                                                             CARD_VP_COVERED[v], CARD_VP_FLIPPED[v])
    lose_poverty(s, p, CARD_DISCARD_POVERTY[v])
    s.poverty[p] += CARD_TAKE_POVERTY[v]
    if CARD_FIRE_BRIGADE[v]:
        for q in range(s.players):
            if q != p:
                pay(s, q, CARD_FIRE_BRIGADE[v] * boroughs_of(s, q))     # LN-23, LN-60
    s.effect_card = i
    if CARD_COFFEE_HOUSE[v]:
        s.phase = PH_COFFEE
    elif CARD_OPPONENT_POVERTY[v]:
        s.phase = PH_TARGET
    elif CARD_GIVE_POVERTY[v]:
        if s.poverty[p] > 0:
            s.phase = PH_TARGET
        else:
            back_to_run(s)                  # nothing to move (LN-62)
    elif CARD_PRISON[v]:
        s.choices_left = CARD_PRISON[v]
        if s.hand_n[p] > 0:
            s.phase = PH_PRISON
        else:
            back_to_run(s)
    elif CARD_WORKHOUSE[v]:
        s.phase = PH_WORKHOUSE
        if hand_colour(s, p, C_GREY) == 0:
            back_to_run(s)
    elif CARD_UNDERGROUND[v]:
        s.choices_left = CARD_UNDERGROUND[v]
        next_underground(s)
    elif CARD_WHITEHALL[v]:
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
    return (f & F_ACTIVATED) and not (f & (F_KEPT | F_DOWN)) and CARD_FLIPS[s.pc_version[p][i]]

cdef int usable_hospital(const LNState* s, int p) noexcept nogil:
    cdef int i, v
    for i in range(s.pc_n[p]):
        v = s.pc_version[p][i]
        if CARD_HOSPITAL[v] and is_active_card(s, p, i):
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
