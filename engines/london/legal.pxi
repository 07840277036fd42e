# London: the legal actions at every phase, and the chance outcomes.
# Included by engine.pyx, so that its functions compile (and inline) with the rules.

cdef inline int add_kind(int* out, int n, int r, int k) noexcept nogil:
    # Duplicates (two versions of a kind) are removed once the list is sorted (legal's end).
    out[n] = A_KINDS + MAX_K * r + k
    return n + 1

cdef int hand_kinds(const LNState* s, int p, int r, int colour, int other_than, int* out, int n) noexcept nogil:
    """Adds range r's action for each kind in p's hand (of `colour` if >= 0, not of
    `other_than` if >= 0)."""
    cdef int v = hand_next(s, p, 0)
    while v >= 0:
        if (colour < 0 or CARD_COLOUR[v] == colour) and (other_than < 0 or CARD_COLOUR[v] != other_than):
            n = add_kind(out, n, r, CARD_KIND[v])
        v = hand_next(s, p, v + 1)
    return n

cdef int display_kinds(const LNState* s, int r_top, int r_bottom, bint base_only, int* out, int n) noexcept nogil:
    cdef int i, v
    for i in range(s.display_n[0]):
        v = s.display[0][i]
        if CARD_STONE_BASE[v] or not base_only:
            n = add_kind(out, n, r_top, CARD_KIND[v])
    for i in range(s.display_n[1]):
        v = s.display[1][i]
        if CARD_STONE_BASE[v] or not base_only:
            n = add_kind(out, n, r_bottom, CARD_KIND[v])
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
        if s.deck[v] > 0 and CARD_LETTER[v] == l:
            total += s.deck[v]
    for v in range(NV):
        if s.deck[v] > 0 and CARD_LETTER[v] == l:
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
            n = add_kind(out, n, R_TAKE_LOOKED, CARD_KIND[s.look[i]])
        n = display_kinds(s, R_TAKE_TOP, R_TAKE_BOTTOM, False, out, n)
    elif ph == PH_PUT_BACK:
        for i in range(s.look_n):
            n = add_kind(out, n, R_PUT_BACK, CARD_KIND[s.look[i]])
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
                n = add_kind(out, n, R_PLACE, CARD_KIND[v])
                k = 1
            if CARD_HAND_DRAW[v] or CARD_WREN[v]:
                n = add_kind(out, n, R_USE, CARD_KIND[v])
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
                             CARD_KIND[s.pc_version[p][i]])
    elif ph == PH_PAY:
        n = hand_kinds(s, p, R_EXPEND, CARD_COLOUR[s.pending], -1, out, n)
        if s.perm[8 * p + P_SCHOOL] > 0:
            n = hand_kinds(s, p, R_SCHOOL, -1, CARD_COLOUR[s.pending], out, n)   # LN-47
    elif ph == PH_RUN:
        if s.activations > 0:
            out[n] = A_DONE
            n += 1
        for i in range(s.pc_n[p]):
            if can_activate(s, p, i):
                n = add_kind(out, n, R_ACTIVATE, CARD_KIND[s.pc_version[p][i]])
    elif ph == PH_RUN_COST:
        n = hand_kinds(s, p, R_EXPEND, C_BLUE if CARD_ACTIVATION_COST[s.pc_version[p][s.pending]] == AC_BLUE else -1,
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
                n = add_kind(out, n, R_AGAIN, CARD_KIND[s.pc_version[p][i]])
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
                n = add_kind(out, n, R_KEEP, CARD_KIND[s.pc_version[p][i]])
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
