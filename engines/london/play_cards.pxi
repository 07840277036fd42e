# London: the Play Cards action: placing a card on a Building Display.
# Included by engine.pyx, so that its functions compile (and inline) with the rules.

cdef inline bint placement_payable(const LNState* s, int p, int v, int waivers) noexcept nogil:
    """Could v (still in the hand) be placed now: a card to expend, or a power that spares it (LN-28)."""
    if not CARD_STONE_BASE[v]:
        return False
    if CARD_PLACED_WITHOUT_EXPENDING[v] or waivers > 0:
        return True
    if hand_colour(s, p, CARD_COLOUR[v]) >= 2:
        return True
    return s.perm[8 * p + P_SCHOOL] > 0 and s.hand_n[p] >= 2

cdef bint can_place_any(const LNState* s, int p, bint with_wren) noexcept nogil:
    cdef int v, waivers = s.wren_waivers
    if with_wren and waivers == 0:
        v = hand_next(s, p, 0)
        while v >= 0:
            if CARD_WREN[v] > 0:
                waivers = CARD_WREN[v]
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
        if stack_target(s, p, i) and CARD_KIND[s.pc_version[p][i]] == k \
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
    pay(s, p, CARD_COST[v])
    for j in range(i):
        w = s.pc_version[p][j]
        if CARD_SHOPS_STORE[w] and is_active_card(s, p, j):
            s.pc_money[p][j] += CARD_SHOPS_STORE[w]
    refresh_powers(s, p)

cdef void begin_payment(LNState* s) noexcept nogil:
    cdef int p = s.active
    if CARD_PLACED_WITHOUT_EXPENDING[s.pending]:
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
