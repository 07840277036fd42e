# London: where the cards are (hands, the Card Display, the Building Displays and the
# powers in force there), money and poverty, and the boroughs a seat holds.
# Included by engine.pyx, so that its functions compile (and inline) with the rules.

cdef inline void fold(LNState* s, int event, int who, int value) noexcept nogil:
    s.public_hash = mix64(s.public_hash, <uint64_t>((event << 24) | ((who + 1) << 16) | (value & 0xFFFF)))

cdef inline int row_width(const LNState* s) noexcept nogil:
    return s.players + 1                    # 3, 4 or 5 spaces (LN-19)

cdef inline int deck_cards(const LNState* s) noexcept nogil:
    """Cards that a deck draw could take: the unseen deck and the cards put back on it."""
    return s.deck_n + s.top_n

cdef inline int display_cards(const LNState* s) noexcept nogil:
    return s.display_n[0] + s.display_n[1]

cdef inline bint is_active_card(const LNState* s, int p, int i) noexcept nogil:
    """Face up and uncovered: its permanent power is in force (LN-30, LN-42)."""
    return (s.pc_flags[p][i] & (F_DOWN | F_COVERED)) == 0

cdef void refresh_powers(LNState* s, int p) noexcept nogil:
    """Recomputes p's cached permanent powers after its Building Display changed."""
    cdef int i, v, j
    cdef int16_t* perm = &s.perm[8 * p]
    for j in range(NUM_P):
        perm[j] = 0
    for i in range(s.pc_n[p]):
        if not is_active_card(s, p, i):
            continue
        v = s.pc_version[p][i]
        if CARD_SCHOOL_FEE[v] > perm[P_SCHOOL]:
            perm[P_SCHOOL] = CARD_SCHOOL_FEE[v]
        if CARD_UNIVERSITY_LOOK[v] > perm[P_LOOK]:
            perm[P_LOOK] = CARD_UNIVERSITY_LOOK[v]
        if CARD_STOCK_EXCHANGE[v] > perm[P_SWAP]:
            perm[P_SWAP] = CARD_STOCK_EXCHANGE[v]
        if CARD_LOAN[v] > perm[P_LOAN]:
            perm[P_LOAN] = CARD_LOAN[v]
        if CARD_PUB[v] > perm[P_PUB]:
            perm[P_PUB] = CARD_PUB[v]
        if CARD_TURN_DRAW_MAX[v] > perm[P_DRAW_MAX]:
            perm[P_DRAW_MAX] = CARD_TURN_DRAW_MAX[v]
            perm[P_DRAW_MIN] = CARD_TURN_DRAW_MIN[v]

cdef void refresh_caches(LNState* s) noexcept nogil:
    """Every cache of the state, from its fields (a state built from a description)."""
    cdef int p, v, l
    s.deck_n = 0
    for l in range(3):
        s.letter_n[l] = 0
    for v in range(NV):
        s.deck_n += s.deck[v]
        s.letter_n[CARD_LETTER[v]] += s.deck[v]
    for p in range(LN_MAX_PLAYERS):
        for l in range(4):
            s.colour_n[4 * p + l] = 0
        for l in range(NUM_P):
            s.perm[8 * p + l] = 0
    for p in range(LN_MAX_PLAYERS):
        s.hand_mask[2 * p] = 0
        s.hand_mask[2 * p + 1] = 0
    for p in range(s.players):
        for v in range(NV):
            s.colour_n[4 * p + CARD_COLOUR[v]] += s.hand[p][v]
            if s.hand[p][v] > 0:
                s.hand_mask[2 * p + (v >> 6)] |= <uint64_t>1 << (v & 63)
        refresh_powers(s, p)

cdef inline int boroughs_of(const LNState* s, int p) noexcept nogil:
    cdef int b, n = 0
    for b in range(NB):
        if s.owner[b] == p:
            n += 1
    return n

cdef inline uint32_t occupied_mask(const LNState* s) noexcept nogil:
    cdef uint32_t m = 0
    cdef int b
    for b in range(NB):
        if s.owner[b] >= 0:
            m |= <uint32_t>1 << b
    return m

cdef inline uint32_t underground_mask(const LNState* s) noexcept nogil:
    cdef uint32_t m = 0
    cdef int b
    for b in range(NB):
        if s.underground[b]:
            m |= <uint32_t>1 << b
    return m

cdef extern from *:
    int count_trailing_zeros "__builtin_ctzll"(unsigned long long) nogil

cdef inline int hand_next(const LNState* s, int p, int v) noexcept nogil:
    """The first version >= v in p's hand, or -1 (a scan of the hand's bit mask)."""
    cdef uint64_t m
    cdef int w
    if v >= 128:
        return -1
    w = v >> 6
    m = s.hand_mask[2 * p + w] & (~<uint64_t>0 << (v & 63))
    while True:
        if m:
            return (w << 6) + count_trailing_zeros(m)
        w += 1
        if w >= 2:
            return -1
        m = s.hand_mask[2 * p + w]

cdef inline void hand_add(LNState* s, int p, int v) noexcept nogil:
    s.hand[p][v] += 1
    s.hand_n[p] += 1
    s.hand_mask[2 * p + (v >> 6)] |= <uint64_t>1 << (v & 63)
    s.colour_n[4 * p + CARD_COLOUR[v]] += 1
    s.hand_hash[p] += Z_KIND[p][CARD_KIND[v]]

cdef inline void hand_remove(LNState* s, int p, int v) noexcept nogil:
    """A card leaves the hand, face up for all to see: what others were sure of drops by one
    copy of it, never below zero (LN-84)."""
    s.hand[p][v] -= 1
    s.hand_n[p] -= 1
    if s.hand[p][v] == 0:
        s.hand_mask[2 * p + (v >> 6)] &= ~(<uint64_t>1 << (v & 63))
    s.colour_n[4 * p + CARD_COLOUR[v]] -= 1
    s.hand_hash[p] -= Z_KIND[p][CARD_KIND[v]]
    if s.known[p][v] > 0:
        s.known[p][v] -= 1
    if s.owner_sure[p][v] > 0:
        s.owner_sure[p][v] -= 1
        s.sure_hash -= Z_KIND[p][CARD_KIND[v]]

cdef inline void hand_add_known(LNState* s, int p, int v) noexcept nogil:
    """A card taken from the face-up Card Display: every seat knows it is in the hand (LN-84)."""
    hand_add(s, p, v)
    s.known[p][v] += 1
    s.owner_sure[p][v] += 1
    s.sure_hash += Z_KIND[p][CARD_KIND[v]]

cdef inline bint named_of_kind(const LNState* s, int k) noexcept nogil:
    return s.named > 0 and CARD_KIND[s.named - 1] == k

cdef inline int hand_version(const LNState* s, int p, int k) noexcept nogil:
    """The copy of kind k that leaves p's hand: the lowest version held (LN-93), or the one the
    client named (apply_named); -1 if none."""
    cdef int v
    if named_of_kind(s, k) and s.hand[p][s.named - 1] > 0:
        return s.named - 1
    v = hand_next(s, p, K_FIRST[k])
    while v >= 0:
        if CARD_KIND[v] == k:
            return v
        v = hand_next(s, p, v + 1)
    return -1

cdef inline int hand_colour(const LNState* s, int p, int colour) noexcept nogil:
    return s.colour_n[4 * p + colour]

cdef void display_insert(LNState* s, int r, int v) noexcept nogil:
    cdef int i = s.display_n[r]
    while i > 0 and s.display[r][i - 1] > v:
        s.display[r][i] = s.display[r][i - 1]
        i -= 1
    s.display[r][i] = v
    s.display_n[r] += 1

cdef void display_put(LNState* s, int v) noexcept nogil:
    """A card goes to the Card Display (LN-20): the top row first, then the bottom row; with
    both full the top row is discarded and the bottom row moves up."""
    cdef int w = row_width(s), i
    if s.display_n[0] < w:
        display_insert(s, 0, v)
    elif s.display_n[1] < w:
        display_insert(s, 1, v)
    else:
        for i in range(s.display_n[0]):
            s.discard[s.display[0][i]] += 1
        for i in range(s.display_n[1]):
            s.display[0][i] = s.display[1][i]
        s.display_n[0] = s.display_n[1]
        s.display_n[1] = 0
        display_insert(s, 1, v)

cdef int row_version(const LNState* s, int r, int k) noexcept nogil:
    """The space in row r of the kind's lowest version (the row is sorted), or of the version
    the client named (apply_named); -1 if none."""
    cdef int i
    if named_of_kind(s, k):
        for i in range(s.display_n[r]):
            if s.display[r][i] == s.named - 1:
                return i
    for i in range(s.display_n[r]):
        if CARD_KIND[s.display[r][i]] == k:
            return i
    return -1

cdef int look_index(const LNState* s, int k) noexcept nogil:
    """Where in the University look the card of kind k that leaves it lies: the first of the
    kind, or the one the client named (apply_named); -1 if none."""
    cdef int i, first = -1
    for i in range(s.look_n):
        if CARD_KIND[s.look[i]] == k:
            if s.look[i] == s.named - 1:
                return i
            if first < 0:
                first = i
    return first

cdef int look_take(LNState* s, int k) noexcept nogil:
    """Takes a card of kind k out of the University look (the caller lists only kinds it holds)."""
    cdef int i = look_index(s, k), v
    if i < 0:
        return -1
    v = s.look[i]
    s.look[i] = s.look[s.look_n - 1]
    s.look_n -= 1
    return v

cdef int display_take(LNState* s, int r, int k) noexcept nogil:
    """Takes the lowest version of kind k from row r; its space stays free (LN-21)."""
    cdef int i = row_version(s, r, k), v, j
    if i < 0:
        return -1
    v = s.display[r][i]
    for j in range(i, s.display_n[r] - 1):
        s.display[r][j] = s.display[r][j + 1]
    s.display_n[r] -= 1
    return v

cdef inline int loan_value(const LNState* s, int p) noexcept nogil:
    cdef int x = s.perm[8 * p + P_LOAN]
    return x if x > 0 else 10

cdef void pay(LNState* s, int p, int amount) noexcept nogil:
    """Pays the bank; the fewest loans that cover a shortfall are taken first (LN-22 to LN-24)."""
    cdef int loan, n
    if amount <= 0:
        return
    if s.money[p] < amount:
        loan = loan_value(s, p)
        n = (amount - s.money[p] + loan - 1) // loan
        s.loans[p] += n
        s.money[p] += n * loan
    s.money[p] -= amount

cdef inline void lose_poverty(LNState* s, int p, int n) noexcept nogil:
    s.poverty[p] -= n
    if s.poverty[p] < 0:
        s.poverty[p] = 0                    # never below zero; the rest is lost (LN-38)

cdef inline int top_letter(const LNState* s) noexcept nogil:
    cdef int l
    for l in range(3):
        if s.letter_n[l] > 0:
            return l
    return 3

cdef int count_display_cards(const LNState* s, int p, int colours, int covered, int flipped) noexcept nogil:
    """Cards of the colour mask in p's Building Display (LN-57, LN-58)."""
    cdef int i, n = 0, f
    for i in range(s.pc_n[p]):
        f = s.pc_flags[p][i]
        if (f & F_COVERED) and not covered:
            continue
        if (f & F_DOWN) and not flipped:
            continue
        if (colours >> CARD_COLOUR[s.pc_version[p][i]]) & 1:
            n += 1
    return n

cdef int boroughs_in_set(const LNState* s, int p, int which) noexcept nogil:
    cdef int b, n = 0
    for b in range(NB):
        if s.owner[b] != p:
            continue
        if which == BS_ALL or (which == BS_THAMES and B_THAMES[b]) or (which == BS_NORTH and B_NORTH[b]) \
                or (which == BS_SOUTH and not B_NORTH[b]):
            n += 1
    return n
