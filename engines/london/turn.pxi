# London: the turn's flow: the draws, the end of a turn and of the game,
# and the final scoring.
# Included by engine.pyx, so that its functions compile (and inline) with the rules.

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
            x = CARD_VP[s.pc_version[p][i]]
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

cdef int rank_key(const LNScore* a, const LNScore* b) noexcept nogil:
    """LN-81: which key tells two seats' final scorings apart, signed: +k if a ranks above b
    by the k-th key, -k if below, 0 if tied on all (they share the win). Keys: 1, more final
    VP; 2, fewer poverty points; 3, more boroughs; 4, the higher best card.  The one statement
    of the ranking, read by game_over and by final_ranking."""
    if a.vp != b.vp:
        return 1 if a.vp > b.vp else -1
    if a.poverty != b.poverty:
        return 2 if a.poverty < b.poverty else -2
    if a.boroughs != b.boroughs:
        return 3 if a.boroughs > b.boroughs else -3
    if a.top_card != b.top_card:
        return 4 if a.top_card > b.top_card else -4
    return 0

cdef void game_over(LNState* s) noexcept nogil:
    """Final scoring and the winners (LN-75 to LN-81)."""
    cdef int p, x, best = -1
    cdef LNScore sc[LN_MAX_PLAYERS]
    score_seats(s, sc)
    s.winners = 0
    for p in range(s.players):
        s.final_vp[p] = sc[p].vp
        s.final_poverty[p] = sc[p].poverty
        if best < 0:
            best = p
            s.winners = 1 << p
            continue
        # Compare p with the current best (LN-81).
        x = rank_key(&sc[p], &sc[best])
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
        fold(s, EV_LOOKED, p, CARD_LETTER[v])
        continue_look(s)
        return
    hand_add(s, p, v)
    if from_top and s.uni_owner >= 0 and p != s.uni_owner:
        s.owner_sure[p][v] += 1             # the owner put it there (LN-85)
        s.sure_hash += Z_KIND[p][CARD_KIND[v]]
    fold(s, EV_DRAW, p, CARD_LETTER[v])
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
