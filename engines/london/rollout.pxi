# London's rollout policy (GameDef.rollout_action), included by engine.pyx just
# before the GameDef table.  Not a rule: the search's default playout policy.
#
# It may read the whole (determinized) state, but in fact looks only at what the
# active player knows (its hand, its looked-at cards, the public state), so the
# same play would make sense at a real table.  Cheap and allocation-free: one
# pass over the hand or the Building Display per decision, integer scores in
# tenths of a VP.  One decision in RO_UNIFORM is uniform over the legal actions
# so that playouts stay diverse.  The play: take the deck's card (a Display card
# now and then when it is a good one), run the city when the activations beat
# the poverty the run adds, place the most valuable payable card (covering
# flipped cards rather than starting stacks), buy affordable land, Take Three
# Cards when the hand is thin, end Play Cards and Run City early, cut and expend
# the least valuable cards.  Uniform play keeps cycling cards through the Card
# Display and lasts about 100 turns; this ends the game when the deck runs out.

cdef enum:
    RO_UNIFORM = 10             # one decision in ten is uniform
    RO_MONEY = 4                # tenths of a VP per £
    RO_POVERTY = 15             # tenths of a VP per poverty point
    RO_NEW_STACK = 20           # a new stack: a poverty point at each later run

cdef int RO_KEEP[MAX_V]         # what a hand card is worth (tenths of a VP)
cdef int RO_GAIN[MAX_V]         # an activation's fixed yield, before its cost
cdef int RO_PLACE[MAX_V]        # a placed card's worth over the game, before its £ cost


cdef void ro_init() noexcept:
    cdef int v, g, perm
    for v in range(NV):
        g = RO_MONEY * V_GAIN_MONEY[v] + 10 * V_GAIN_VP[v] + RO_POVERTY * V_DISCARD_POVERTY[v] \
            - RO_POVERTY * V_TAKE_POVERTY[v]
        if V_OTHERS_PAY[v]:
            g += RO_MONEY * V_OTHERS_PAY[v]
        if V_UNDERGROUND[v]:
            g += 12 * V_UNDERGROUND[v]
        if V_OPPONENT_POVERTY[v] or V_GIVE_POVERTY[v]:
            g += 12
        if V_PRISON[v]:
            g += 20 + 10 * V_PRISON_VP[v]
        if V_WORKHOUSE[v]:
            g += 15
        if V_COFFEE[v]:
            g += 20
        if V_WHITEHALL[v]:
            g += 25
        if V_PER_BOROUGH[v] or V_MONEY_PER_CARD[v] or V_VP_PER_CARD[v] or V_COLLECT[v]:
            g += 10                 # counted afresh when activated; this is its promise
        RO_GAIN[v] = g
        perm = 0
        if V_SCHOOL[v]:
            perm += 20
        if V_LOOK[v]:
            perm += 10
        if V_SWAP[v]:
            perm += 5
        if V_STORE[v]:
            perm += 15
        if V_PUB[v]:
            perm += 40
        if V_DRAW_MAX[v]:
            perm += 15
        if V_LOAN[v]:
            perm += 5
        if V_HOSPITAL[v]:
            perm += 10
        RO_PLACE[v] = 10 * V_VP[v] + perm
        if V_ACT[v] and not V_HOSPITAL[v] and g > 0:
            RO_PLACE[v] += g if V_FLIP[v] else 2 * g
        if V_PAUPER[v]:
            RO_KEEP[v] = -10
        elif V_WREN[v]:
            RO_KEEP[v] = 15
        elif V_HAND_DRAW[v]:
            RO_KEEP[v] = 10
        elif not V_BASE[v]:
            RO_KEEP[v] = 0
        else:
            g = RO_PLACE[v] - RO_MONEY * V_COST[v]
            RO_KEEP[v] = 5 + (g // 2 if g > 0 else 0)

ro_init()


cdef inline int ro_kind(int r, int v) noexcept nogil:
    return A_KINDS + MAX_K * r + V_KIND[v] if v >= 0 else -1

cdef int ro_uniform(const LNState* s, Rng* rng) noexcept nogil:
    cdef int buf[2 * MAX_K + 8]
    cdef int n = legal(s, buf)
    return buf[rng_below(rng, n)] if n > 0 else A_DONE

cdef int ro_worst_hand(const LNState* s, int p, int colour, int other_than) noexcept nogil:
    """The hand version of least worth (of `colour` if >= 0, not of `other_than` if >= 0), or -1."""
    cdef int v, best = -1
    for v in range(NV):
        if s.hand[p][v] > 0 and (colour < 0 or V_COLOUR[v] == colour) \
                and (other_than < 0 or V_COLOUR[v] != other_than):
            if best < 0 or RO_KEEP[v] < RO_KEEP[best]:
                best = v
    return best

cdef int ro_gain(const LNState* s, int p, int i) noexcept nogil:
    """Card i of p's display activated now: its yield less its cost (tenths of a VP)."""
    cdef int v = s.pc_version[p][i], g = RO_GAIN[v]
    if V_PER_BOROUGH[v]:
        g += RO_MONEY * V_PER_BOROUGH[v] * boroughs_in_set(s, p, V_BOROUGH_SET[v]) - 10
    if V_MONEY_PER_CARD[v]:
        g += RO_MONEY * V_MONEY_PER_CARD[v] * count_display_cards(s, p, V_MONEY_COLOURS[v], V_MONEY_COVERED[v],
                                                                  V_MONEY_FLIPPED[v]) - 10
    if V_VP_PER_CARD[v]:
        g += 10 * V_VP_PER_CARD[v] * count_display_cards(s, p, V_VP_COLOURS[v], V_VP_COVERED[v],
                                                         V_VP_FLIPPED[v]) - 10
    if V_COLLECT[v]:
        g += RO_MONEY * s.pc_money[p][i] - 10
    if V_DISCARD_POVERTY[v] > s.poverty[p] + 1:
        g -= RO_POVERTY * (V_DISCARD_POVERTY[v] - s.poverty[p] - 1)
    if V_ACT_COST[v] == AC_MONEY:
        g -= RO_MONEY * V_ACT_MONEY[v] + (30 if s.money[p] < V_ACT_MONEY[v] else 0)
    elif V_ACT_COST[v] == AC_ANY or V_ACT_COST[v] == AC_BLUE:
        g -= 3                      # a card leaves the hand (and no longer counts for poverty)
    return g

cdef int ro_place_value(const LNState* s, int p, int v) noexcept nogil:
    cdef int x = RO_PLACE[v] - RO_MONEY * V_COST[v]
    if V_COST[v] > s.money[p]:
        x -= 30 * ((V_COST[v] - s.money[p] + 9) // 10)     # a loan: about 7 VP at the end for £10
    return x

cdef inline int ro_room(const LNState* s, int p, int cards) noexcept nogil:
    """How many of `cards` new cards the hand holds before the cut (LN-17)."""
    cdef int room = HAND_LIMIT - s.hand_n[p]
    if room < 0:
        room = 0
    return cards if cards < room else room

cdef int ro_source(const LNState* s, Rng* rng) noexcept nogil:
    """Where the next card comes from: the deck, or now and then a good Display card."""
    cdef int p = s.active, r, i, v, best = -1, best_row = 0
    if s.draws_taken >= s.draws_min and s.hand_n[p] >= 8:
        return A_STOP
    for r in range(2):
        for i in range(s.display_n[r]):
            v = s.display[r][i]
            if best < 0 or RO_KEEP[v] > RO_KEEP[best]:
                best = v
                best_row = r
    if deck_cards(s) > 0:
        if best < 0 or RO_KEEP[best] < 25 or s.hand_n[p] >= 8 or rng_below(rng, 4) != 0:
            return A_DECK
    if best < 0:
        return A_STOP
    return ro_kind(R_TAKE_TOP + best_row, best)

cdef int ro_action(const LNState* s, Rng* rng) noexcept nogil:
    """Run City, Play Cards, Buy Land or Take Three Cards: the best estimate."""
    cdef int p = s.active, i, v, b, x, gains = 0, expends = 0, hand, delta
    cdef int best_action = A_TAKE_THREE, best = -1000000
    # Run City: the good activations less the poverty the run adds (LN-44).
    if can_activate_any(s, p):
        for i in range(s.pc_n[p]):
            if can_activate(s, p, i):
                x = ro_gain(s, p, i)
                if x > 0:
                    gains += x
                    v = s.pc_version[p][i]
                    if V_ACT_COST[v] == AC_ANY or V_ACT_COST[v] == AC_BLUE:
                        expends += 1
        hand = 0 if s.perm[8 * p + P_PUB] else s.hand_n[p] - expends
        delta = s.stacks[p] + hand - boroughs_of(s, p)
        if delta < -s.poverty[p]:
            delta = -s.poverty[p]
        x = gains - RO_POVERTY * delta
        if x > best:
            best = x
            best_action = A_RUN_CITY
    # Play Cards: the best payable card.
    if can_place_any(s, p, True):
        x = -1000
        for v in range(NV):
            if s.hand[p][v] > 0 and placement_payable(s, p, v, 0):
                i = ro_place_value(s, p, v) - 8
                if i > x:
                    x = i
        if x > best:
            best = x
            best_action = A_PLAY_CARDS
    # Buy Land: an affordable borough (VP, cards, one poverty point fewer at each later run).
    if boroughs_of(s, p) < BUILDING_COUNTERS:
        for b in range(NB):
            if _buyable(s, b, occupied_mask(s)):
                x = 10 * B_VP[b] + 8 * ro_room(s, p, B_CARDS[b]) + 30 - RO_MONEY * B_COST[b]
                if B_COST[b] > s.money[p]:
                    x -= 40
                if x > best:
                    best = x
                    best_action = A_BUY_LAND
    # Take Three Cards when the hand is thin.
    x = 25 - 8 * s.hand_n[p]
    if x > best:
        best_action = A_TAKE_THREE
    return best_action

cdef int ro_play(const LNState* s, Rng* rng) noexcept nogil:
    cdef int p = s.active, v, x, best = -1, best_x = -1000000
    for v in range(NV):
        if s.hand[p][v] > 0 and placement_payable(s, p, v, s.wren_waivers):
            x = ro_place_value(s, p, v)
            if x > best_x:
                best_x = x
                best = v
    if s.placed > 0 or not can_place_any(s, p, False):
        if best < 0 or best_x < 10 or rng_below(rng, 2) == 0:
            return A_DONE
    if best >= 0:
        return ro_kind(R_PLACE, best)
    for v in range(NV):
        if s.hand[p][v] > 0 and (V_HAND_DRAW[v] or V_WREN[v]):
            return ro_kind(R_USE, v)
    return A_DONE

cdef int ro_where(const LNState* s) noexcept nogil:
    """Cover a flipped card, else a face-up card with nothing left to give, else a new stack."""
    cdef int p = s.active, i, v, f, plain = -1
    for i in range(s.pc_n[p]):
        if not stack_target(s, p, i):
            continue
        f = s.pc_flags[p][i]
        v = s.pc_version[p][i]
        if f & F_DOWN:
            return ro_kind(R_ON_DOWN, v)
        if plain < 0 and not V_ACT[v] and RO_PLACE[v] == 10 * V_VP[v]:
            plain = v
    if plain >= 0:
        return ro_kind(R_ON_UP, plain)
    return A_NEW_STACK

cdef int ro_pay(const LNState* s) noexcept nogil:
    cdef int p = s.active, c = V_COLOUR[s.pending], v
    v = ro_worst_hand(s, p, c, -1)
    if v >= 0:
        return ro_kind(R_EXPEND, v)
    return ro_kind(R_SCHOOL, ro_worst_hand(s, p, -1, c))

cdef int ro_run(const LNState* s, Rng* rng) noexcept nogil:
    cdef int p = s.active, i, x, best = -1, best_x = -1000000
    for i in range(s.pc_n[p]):
        if can_activate(s, p, i):
            x = ro_gain(s, p, i)
            if V_WHITEHALL[s.pc_version[p][i]]:
                x -= 10                 # after the others, so it has a target worth repeating
            if x > best_x:
                best_x = x
                best = i
    if s.activations > 0 and (best < 0 or best_x <= 0):
        return A_DONE
    return ro_kind(R_ACTIVATE, s.pc_version[p][best]) if best >= 0 else -1

cdef int ro_policy(const LNState* s, Rng* rng) noexcept nogil:
    """The policy's pick, or -1 when it has none."""
    cdef int p = s.active, ph = s.phase, i, v, r, b, best, x, best_x
    if ph == PH_SOURCE:
        return ro_source(s, rng)
    if ph == PH_ACTION:
        return ro_action(s, rng)
    if ph == PH_PLAY:
        return ro_play(s, rng)
    if ph == PH_WHERE:
        return ro_where(s)
    if ph == PH_PAY:
        return ro_pay(s)
    if ph == PH_RUN:
        return ro_run(s, rng)
    if ph == PH_RUN_COST:
        v = ro_worst_hand(s, p, C_BLUE if V_ACT_COST[s.pc_version[p][s.pending]] == AC_BLUE else -1, -1)
        return ro_kind(R_EXPEND, v)
    if ph == PH_CUT or ph == PH_GIVE:
        return ro_kind(R_CUT if ph == PH_CUT else R_GIVE, ro_worst_hand(s, p, -1, -1))
    if ph == PH_LOOK:
        return A_NO_LOOK
    if ph == PH_SWAP:
        return A_NO_SWAP
    if ph == PH_TAKE_LOOKED:
        best = -1
        for i in range(s.look_n):
            if best < 0 or RO_KEEP[s.look[i]] > RO_KEEP[best]:
                best = s.look[i]
        if best >= 0:
            return ro_kind(R_TAKE_LOOKED, best)
        return ro_uniform(s, rng)
    if ph == PH_PUT_BACK:
        return ro_kind(R_PUT_BACK, s.look[0])
    if ph == PH_TARGET:
        best = -1
        for i in range(s.players):
            if i != p and (best < 0 or s.poverty[i] < s.poverty[best]):
                best = i
        return A_PLAYER + best
    if ph == PH_PRISON:
        v = ro_worst_hand(s, p, -1, -1)
        if v >= 0 and RO_KEEP[v] <= 10:
            return ro_kind(R_EXPEND, v)
        return A_STOP
    if ph == PH_WORKHOUSE:
        return ro_kind(R_EXPEND, ro_worst_hand(s, p, C_GREY, -1))
    if ph == PH_WHITEHALL:
        best = -1
        best_x = -1000000
        for i in range(s.pc_n[p]):
            if whitehall_target(s, p, i, s.pending):
                x = ro_gain(s, p, i)
                if x > best_x:
                    best_x = x
                    best = i
        return ro_kind(R_AGAIN, s.pc_version[p][best]) if best >= 0 else -1
    if ph == PH_UNDERGROUND:
        best = -1
        for b in range(NB):
            if underground_legal(s, b):
                if best < 0 or (s.owner[b] == p and s.owner[best] != p):
                    best = b
        return A_COUNTER + best if best >= 0 else -1
    if ph == PH_HOSPITAL:
        best = -1
        best_x = -1000000
        for i in range(s.pc_n[p]):
            if flip_candidate(s, p, i):
                x = ro_gain(s, p, i)
                if x > best_x:
                    best_x = x
                    best = i
        return ro_kind(R_KEEP, s.pc_version[p][best]) if best >= 0 else A_STOP
    if ph == PH_BUY:
        best = -1
        best_x = -1000000
        for b in range(NB):
            if _buyable(s, b, occupied_mask(s)):
                x = 10 * B_VP[b] + 8 * ro_room(s, p, B_CARDS[b]) - RO_MONEY * B_COST[b] - (40 if B_COST[b] > s.money[p] else 0)
                if x > best_x:
                    best_x = x
                    best = b
        return A_BUY + best if best >= 0 else -1
    if ph == PH_COFFEE:
        best = -1
        r = 0
        for i in range(2):
            for b in range(s.display_n[i]):
                v = s.display[i][b]
                if V_BASE[v] and (best < 0 or ro_place_value(s, p, v) > ro_place_value(s, p, best)):
                    best = v
                    r = i
        return ro_kind(R_COFFEE_TOP + r, best)
    return ro_uniform(s, rng)


cdef int ln_rollout_action(const void* st, Rng* rng) noexcept nogil:
    cdef const LNState* s = <const LNState*>st
    cdef int a
    if rng_below(rng, RO_UNIFORM) == 0:
        return ro_uniform(s, rng)
    a = ro_policy(s, rng)
    return a if a >= 0 else ro_uniform(s, rng)     # a guard: no pick (cannot happen) falls back to uniform
