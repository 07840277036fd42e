# Kids of London's playout player, without the GIL: the search's rollout policy
# (GameDef.rollout_action) and, without its uniform share, the nogil rule-based player
# (GameDef.heuristic_action).  The bot of heuristic.py is a separate, Python player.
# Included by engine.pyx where the rules end and the analysis scores begin.  Not a rule.

cdef int kl_policy(const KLState* s, Rng* rng, bint explore) noexcept nogil:
    # The search's playout policy (GameDef.rollout_action, with `explore`) and
    # the nogil rule-based player (GameDef.heuristic_action, without), not a
    # rule: cheap, allocation-free; with `explore` uniform one time in four
    # (one in eight for the prince's and the lone survivor's choices) and a
    # card one rank either side now and then, so that playouts stay diverse.
    # It steers towards finishing second (KL-20): high cards for the hours
    # worth robbing, low ones otherwise, and never a theft that would make its
    # seat the richest.  (The room's served heuristic bot is heuristic.py's,
    # in Python.)
    cdef int me = kl_current_player(s), seat, rival = 0, card, h = 0, want, gain, share
    cdef int cards[NUM_CARDS]
    for seat in range(n_seats(s)):
        if seat != me and s.coins[seat] > rival:
            rival = s.coins[seat]
    if s.phase == PH_CHOOSE_CARD:
        for card in range(NUM_CARDS):
            if (s.hand[me] >> card) & 1:
                cards[h] = card
                h += 1
        if h == 0:
            return A_CARD           # no decision here: only a corrupt state gets this far
        if explore and rng_below(rng, 4) == 0:
            return A_CARD + cards[rng_below(rng, h)]
        gain = 0
        if s.character == BEGGAR:
            gain = -3
        elif s.character >= 0 and s.character != LEFT_PRIEST and s.character != RIGHT_PRIEST:
            gain = KIND_VALUE[s.character]
            if s.coins[me] + gain > rival:
                gain = -1
        # The card's rank in the hand follows the hour's worth (-3..8), give or take one.
        want = ((gain + 3) * (h - 1) + 5) // 11
        if explore:
            want += <int>rng_below(rng, 3) - 1
        if want < 0:
            want = 0
        elif want >= h:
            want = h - 1
        return A_CARD + cards[want]
    if s.phase == PH_CHOOSE_PRINCE:
        if explore and rng_below(rng, 8) == 0:
            return A_COMEDIAN + <int>rng_below(rng, 2)
        share = 8 // popcount16(s.robbers)
        return A_COMEDIAN if s.coins[me] + share > rival else A_PRINCE
    # PH_CHOOSE_LONE: the card's value or the character, whichever earns more
    # without making this seat the richest (the lesser if both would).
    if explore and rng_below(rng, 8) == 0:
        return A_LONE_CARD + <int>rng_below(rng, 2)
    card = s.committed[me]
    gain = 0
    if s.character == BEGGAR:
        gain = -3
    elif s.character >= 0 and s.character != LEFT_PRIEST and s.character != RIGHT_PRIEST:
        gain = KIND_VALUE[s.character]
    if (s.coins[me] + card > rival) == (s.coins[me] + gain > rival):
        if s.coins[me] + card > rival:
            return A_LONE_CARD if card <= gain else A_LONE_CHARACTER
        return A_LONE_CARD if card >= gain else A_LONE_CHARACTER
    return A_LONE_CARD if s.coins[me] + card <= rival else A_LONE_CHARACTER

cdef int kl_rollout_action(const void* st, Rng* rng) noexcept nogil:
    return kl_policy(<const KLState*>st, rng, 1)

cdef int kl_heuristic_action(const void* st, Rng* rng) noexcept nogil:
    return kl_policy(<const KLState*>st, rng, 0)
