# London: applying an action, phase by phase.
# Included by engine.pyx, so that its functions compile (and inline) with the rules.

cdef void apply_one(LNState* s, int a) noexcept nogil:
    cdef int p = s.active, ph = s.phase, r = -1, k = -1, v, i, q, amount, b
    cdef uint32_t net
    if a >= A_CHANCE:
        v = a - A_CHANCE
        s.deck[v] -= 1
        s.deck_n -= 1
        s.letter_n[CARD_LETTER[v]] -= 1
        if ph == PH_DEAL:
            # The opening deal: six cards to each seat in turn (LN-5).
            q = (6 * s.players - s.deal_left) // 6
            hand_add(s, q, v)
            fold(s, EV_DRAW, q, CARD_LETTER[v])
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
        fold(s, EV_ACTION, p, A_KINDS + MAX_K * r + MAX_K - 1 - CARD_LETTER[K_FIRST[k]])
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
        if CARD_OPPONENT_POVERTY[v]:
            s.poverty[q] += CARD_OPPONENT_POVERTY[v]           # LN-61
        else:
            amount = CARD_GIVE_POVERTY[v] if CARD_GIVE_POVERTY[v] < s.poverty[p] else s.poverty[p]
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
        if CARD_WREN[v]:
            s.wren_waivers += CARD_WREN[v]
        else:
            begin_draws(s, DF_HAND_POWER, CARD_HAND_DRAW[v], CARD_HAND_DRAW[v])
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
            lose_poverty(s, p, CARD_PRISON_POVERTY[i])
            s.vp[p] += CARD_PRISON_VP[i]
            s.choices_left -= 1
            if s.choices_left <= 0 or s.hand_n[p] == 0:
                back_to_run(s)
        else:                               # the Workhouse
            i = s.pc_version[p][s.effect_card]
            s.money[p] += CARD_PAUPER_MONEY[i]
            lose_poverty(s, p, CARD_PAUPER_POVERTY[i])
            if hand_colour(s, p, C_GREY) == 0:
                back_to_run(s)
    elif r == R_ACTIVATE:
        q = activate_pick(s, p, k)
        s.pc_flags[p][q] |= F_ACTIVATED
        s.activations += 1
        s.pending = q
        v = s.pc_version[p][q]
        if CARD_ACTIVATION_COST[v] == AC_ANY or CARD_ACTIVATION_COST[v] == AC_BLUE:
            s.phase = PH_RUN_COST
        else:
            if CARD_ACTIVATION_COST[v] == AC_MONEY:
                pay(s, p, CARD_ACTIVATION_MONEY[v])
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
        if CARD_KIND[s.pc_version[p][i]] == k and can_activate(s, p, i):
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
        if CARD_KIND[s.pc_version[p][i]] != k:
            continue
        ok = whitehall_target(s, p, i, s.pending) if r == R_AGAIN else flip_candidate(s, p, i)
        if ok:
            if s.pc_version[p][i] == s.named - 1:
                return i
            if first < 0:
                first = i
    return first
