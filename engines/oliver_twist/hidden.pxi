# Oliver Twist: what a seat cannot see: determinizations and information-set keys.
# Included by engine.pyx, so that its functions compile (and inline) with the rules.

cdef void ot_determinize(void* st, int o, Rng* rng) noexcept nogil:
    """OT-31: re-deal what `o` cannot see, each within its kind of place."""
    cdef OTState* s = <OTState*>st
    cdef int16_t rnd[N_KINDS]
    cdef int16_t start[N_KINDS]
    cdef int p, k, sp, n, v, c
    cdef int need_file_r[MAXP]
    cdef int need_file_s[MAXP]
    cdef int need_stash_r[MAXP]
    cdef int need_stash_s[MAXP]
    cdef uint8_t objects[N_KINDS]
    cdef int need_fd, need_bag, need_aside, drawn_n
    cdef int hands[MAXP]
    cdef int kept_n[MAXP]
    cdef uint16_t cards
    cdef int16_t bpool[N_BURGLARY_VALUES]
    memset(rnd, 0, sizeof(rnd))
    memset(start, 0, sizeof(start))
    for k in range(N_KINDS):
        objects[k] = 1 if KOBJ[k] else 0
    # Tokens: the bag, the face-down pool, others' stashes and files, decided face-down
    # tokens o has not seen.  A stash holds Objects only: its round tokens are dealt
    # first, among the Objects of the pool (every physical token equally likely).
    need_bag = ms_total(s.bag, N_KINDS)
    need_fd = ms_total(s.fdpool, N_KINDS)
    need_aside = ms_total(s.aside, N_KINDS)
    for k in range(N_KINDS):
        rnd[k] += s.bag[k] + s.fdpool[k]
        start[k] += s.aside[k]
        s.bag[k] = 0
        s.fdpool[k] = 0
        s.aside[k] = 0
    for p in range(s.players):
        need_file_r[p] = 0
        need_file_s[p] = 0
        need_stash_r[p] = 0
        need_stash_s[p] = 0
        if p == o:
            continue
        for k in range(N_KINDS):
            if KSTART[k]:
                need_file_s[p] += s.pfile[p][k]
                start[k] += s.pfile[p][k]
                need_stash_s[p] += s.stash[p][k]
                start[k] += s.stash[p][k]
            else:
                need_file_r[p] += s.pfile[p][k]
                rnd[k] += s.pfile[p][k]
                need_stash_r[p] += s.stash[p][k]
                rnd[k] += s.stash[p][k]
            s.pfile[p][k] = 0
            s.stash[p][k] = 0
    for sp in range(MAX_SIDE_SPACES):
        v = s.board[sp]
        if face_down(v) and v != FD_UNDET and not (s.known[sp] >> o) & 1:
            rnd[v - FD_BASE] += 1
    for p in range(s.players):
        for n in range(need_stash_r[p]):
            s.stash[p][ms_draw_where(rnd, N_KINDS, objects, rng)] += 1
        for n in range(need_stash_s[p]):
            s.stash[p][ms_draw(start, N_KINDS, rng)] += 1
    for sp in range(MAX_SIDE_SPACES):
        v = s.board[sp]
        if face_down(v) and v != FD_UNDET and not (s.known[sp] >> o) & 1:
            s.board[sp] = FD_BASE + ms_draw(rnd, N_KINDS, rng)
    for p in range(s.players):
        for n in range(need_file_r[p]):
            s.pfile[p][ms_draw(rnd, N_KINDS, rng)] += 1
        for n in range(need_file_s[p]):
            s.pfile[p][ms_draw(start, N_KINDS, rng)] += 1
    for n in range(need_fd):
        s.fdpool[ms_draw(rnd, N_KINDS, rng)] += 1
    for k in range(N_KINDS):
        s.bag[k] = rnd[k]
        s.aside[k] = start[k]
    # Character cards: the draw pile and others' hands.
    cards = s.char_draw
    for p in range(s.players):
        hands[p] = 0
        if p != o:
            hands[p] = popcount16(s.hand[p])
            cards |= s.hand[p]
            s.hand[p] = 0
    s.char_draw = 0
    for p in range(s.players):
        for n in range(hands[p]):
            c = popcount16(cards)
            v = <int>rng_below(rng, c)
            for k in range(N_CHARACTERS):
                if (cards >> k) & 1:
                    if v == 0:
                        cards &= ~(1 << k)
                        s.hand[p] |= 1 << k
                        break
                    v -= 1
    s.char_draw = cards
    # Burglary cards: the draw pile, others' kept cards, another burglar's drawn cards.
    for k in range(N_BURGLARY_VALUES):
        bpool[k] = s.burg_draw[k]
        s.burg_draw[k] = 0
    drawn_n = 0
    for p in range(s.players):
        kept_n[p] = 0
        if p != o and s.phase != PH_OVER:       # OT-29: shown at the game's end
            for k in range(N_BURGLARY_VALUES):
                kept_n[p] += s.kept[p][k]
                bpool[k] += s.kept[p][k]
                s.kept[p][k] = 0
    if s.active != o:
        for k in range(N_BURGLARY_VALUES):
            drawn_n += s.burg_drawn[k]
            bpool[k] += s.burg_drawn[k]
            s.burg_drawn[k] = 0
    for p in range(s.players):
        for n in range(kept_n[p]):
            s.kept[p][draw_bv(bpool, rng)] += 1
    for n in range(drawn_n):
        s.burg_drawn[draw_bv(bpool, rng)] += 1
    for k in range(N_BURGLARY_VALUES):
        s.burg_draw[k] = bpool[k]

cdef int draw_bv(int16_t* pool, Rng* rng) noexcept nogil:
    cdef int k, tot = 0, r
    for k in range(N_BURGLARY_VALUES):
        tot += pool[k]
    r = <int>rng_below(rng, tot)
    for k in range(N_BURGLARY_VALUES):
        r -= pool[k]
        if r < 0:
            pool[k] -= 1
            return k
    return 0

cdef uint64_t ot_infoset_key(const void* st, int o) noexcept nogil:
    """OT-30: a hash of exactly what seat `o` sees now (its view): of another seat's stash
    and file only their sizes and how many starting tokens each holds."""
    cdef const OTState* s = <const OTState*>st
    cdef uint64_t h = 0x9E3779B97F4A7C15
    cdef int p, k, sp, v, n, sn
    cdef int16_t seen[MAX_SIDE_SPACES]
    h = mix64(h, <uint64_t>(s.players + 8 * s.night + 64 * s.phase + 4096 * s.active + 65536 * (s.pawn + 1)))
    h = mix64(h, <uint64_t>(s.fill_next + 256 * s.deal_left + 65536 * s.path_len + 1048576 * s.path_max))
    for k in range(s.path_len):
        h = mix64(h, <uint64_t>(1000 + s.path[k]))
    h = mix64(h, <uint64_t>((s.flips_left + 1) + 64 * (s.flip_from + 2) + 16384 * (s.flip_target + 2)))
    h = mix64(h, <uint64_t>(s.opening + 2 * s.peeks_left + 16 * s.restrict + 64 * s.extra + 256 * (s.pending + 2)))
    h = mix64(h, <uint64_t>((s.fagin_type + 2) + 16 * s.fagin_min + 256 * s.set_last + 65536 * s.pick_left))
    h = mix64(h, <uint64_t>((s.pick_dest + 4) + 16 * s.pick_last + 1024 * s.burg_to_draw + 65536 * s.rewards_taken))
    h = mix64(h, <uint64_t>(s.burg_aside + 256 * s.winners))
    # Each space in 16 bits: its token as the seat sees it (-1 to 100) and who has looked at
    # it (a bit per seat).
    for sp in range(MAX_SIDE_SPACES):
        v = s.board[sp]
        if face_down(v) and not (s.known[sp] >> o) & 1:
            v = FD_UNDET
        seen[sp] = <int16_t>(((v + 1) & 0xFFF) | ((s.known[sp] & 0xF) << 12))
    h = cards_fold_packed(h, seen, MAX_SIDE_SPACES)
    h = cards_fold_packed(h, s.setc, N_KINDS)
    h = mix64(h, <uint64_t>(ms_total(s.bag, N_KINDS) + 4096 * ms_total(s.fdpool, N_KINDS) + 16777216 * ms_total(s.aside, N_KINDS)))
    for p in range(s.players):
        h = mix64(h, <uint64_t>(p * 1000003 + (s.money[p] + 1000) + 65536 * (s.final[p] + 1000)))
        h = cards_fold_packed(h, s.front[p], N_KINDS)
        n = 0
        sn = 0
        for k in range(N_KINDS):
            n += s.stash[p][k]
            if KSTART[k]:
                sn += s.stash[p][k]
        h = mix64(h, <uint64_t>(p * 37 + 1024 * n + 65536 * sn))
        n = 0
        sn = 0
        for k in range(N_KINDS):
            n += s.pfile[p][k]
            if KSTART[k]:
                sn += s.pfile[p][k]
        h = mix64(h, <uint64_t>(p * 31 + 1024 * n + 65536 * sn + 16777216 * popcount16(s.hand[p])))
        n = 0
        for k in range(N_BURGLARY_VALUES):
            n += s.kept[p][k]
        h = mix64(h, <uint64_t>(p * 17 + 256 * n))
        if p == o:
            h = cards_fold_packed(mix64(h, 4000000), s.stash[p], N_KINDS)
            h = cards_fold_packed(mix64(h, 5000000), s.pfile[p], N_KINDS)
            h = mix64(h, <uint64_t>(6000000 + s.hand[p]))
        if p == o or s.phase == PH_OVER:          # OT-29: every Burglary card is shown at the end
            h = cards_fold_packed(mix64(h, 7000000), s.kept[p], N_BURGLARY_VALUES)
    # OT-38: the last round's end, laid open to all.
    h = mix64(h, <uint64_t>(8000000 + s.ended_round))
    if s.ended_round:
        for p in range(s.players):
            h = mix64(h, <uint64_t>(p * 13 + 64 * (s.ended_sets[p] + 1) + 65536 * s.ended_types[p]
                                    + 16777216 * (s.ended_fine[p] + 1)))
            h = cards_fold_packed(h, s.ended_file[p], N_KINDS)
    h = mix64(h, <uint64_t>(s.char_disc + 65536 * popcount16(s.char_draw)))
    n = 0
    v = 0
    for k in range(N_BURGLARY_VALUES):
        n += s.burg_draw[k]
        v += s.burg_drawn[k]
    h = mix64(h, <uint64_t>(n + 256 * v))
    if s.active == o:
        h = cards_fold_packed(mix64(h, 8000000), s.burg_drawn, N_BURGLARY_VALUES)
    return h
