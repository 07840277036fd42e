# Gangs of Kyoto's playout player, without the GIL: the search's rollout policy
# (GameDef.rollout_action) and, without its uniform share, the nogil rule-based player
# (GameDef.heuristic_action).  The bot of heuristic.py is a separate, Python player.
# Included by engine.pyx where the rules end and the analysis scores begin.  Not a rule.

cdef int gk_policy(const GKState* s, Rng* rng, bint explore) noexcept nogil:
    # The search's playout policy (GameDef.rollout_action, with `explore`) and the nogil
    # rule-based player (GameDef.heuristic_action, without), not a rule: cheap,
    # allocation-free; with `explore` uniform one time in four (one in eight for
    # refusals) so that playouts stay diverse.  Bells and helpful cards go to its own
    # row, costly ones to others; a card that would bust a rival holding bells goes to
    # that rival; a card that would bust its own row, or discard a bell from it, is
    # refused.  (The room's served heuristic bot is heuristic.py's, in Python.)
    cdef int me, k, kind, p, i, c, n = 0, best = -1, score, best_score = -1000000, ties = 0
    cdef int v, limit, refuse, row_bells, mine = 0, last
    if s.phase == PH_REFUSE:
        me = s.receiver
        k = s.arriving
        if explore and rng_below(rng, 8) == 0:
            return A_ACCEPT + <int>rng_below(rng, 2)
        limit = LIMIT
        for i in range(s.row_len[me]):
            if KIND_OF[s.row[me][i]] == K_STAY_LATE:
                limit = LIMIT_STAY_LATE
        if KIND_OF[k] == K_EXPLORATION and s.row_sum[me] + VALUE_OF[k] >= limit:
            return A_REFUSE
        if KIND_OF[k] == K_DISCARD and s.row_len[me] > 0 and BELLS_OF[s.row[me][s.row_len[me] - 1]] > 0:
            return A_REFUSE
        return A_ACCEPT
    me = s.active
    k = s.revealed
    kind = KIND_OF[k] if k >= 0 else K_EXPLORATION
    for i in range(s.row_len[me]):
        mine += BELLS_OF[s.row[me][i]]
    if explore and rng_below(rng, 4) == 0:
        for p in range(s.players):
            if not (s.received >> p) & 1:
                n += 1
                if rng_below(rng, n) == 0:
                    best = p
        return A_GIVE + (best if best >= 0 else me)
    for p in range(s.players):
        if (s.received >> p) & 1:
            continue
        if kind == K_BELL:
            score = 10 * BELLS_OF[k] if p == me else -2 * BELLS_OF[k]
        elif kind == K_STAY_LATE or kind == K_REFUSE:
            score = 3 if p == me else -1
        elif kind == K_DISCARD:
            score = 0
            if s.row_len[p] > 0:
                last = s.row[p][s.row_len[p] - 1]
                score = VALUE_OF[last] - 4 * BELLS_OF[last]
                if p != me:
                    score = -score
        else:
            limit = LIMIT
            refuse = 0
            row_bells = 0
            for i in range(s.row_len[p]):
                c = KIND_OF[s.row[p][i]]
                if c == K_STAY_LATE:
                    limit = LIMIT_STAY_LATE
                elif c == K_REFUSE:
                    refuse = 1
                row_bells += BELLS_OF[s.row[p][i]]
            v = VALUE_OF[k] + (2 if DRAWS[k] else 0)     # a draw symbol brings another card
            if s.row_sum[p] + v >= limit and not refuse:
                # A bust discards that row and banks every other row's bells (GK-12).
                score = -20 - 4 * mine if p == me else 4 * row_bells + 2 * mine + 2
            elif p == me:
                score = 8 * BELLS_OF[k] - 2 * v * (s.row_sum[p] + v) // limit
            else:
                score = -8 * BELLS_OF[k] + v * (s.row_sum[p] + v) // limit
        if score > best_score:
            best_score = score
            best = p
            ties = 1
        elif score == best_score:
            ties += 1
            if rng_below(rng, ties) == 0:
                best = p
    return A_GIVE + (best if best >= 0 else me)

cdef int gk_rollout_action(const void* st, Rng* rng) noexcept nogil:
    return gk_policy(<const GKState*>st, rng, 1)

cdef int gk_heuristic_action(const void* st, Rng* rng) noexcept nogil:
    return gk_policy(<const GKState*>st, rng, 0)
