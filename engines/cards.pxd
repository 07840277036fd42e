# cython: language_level=3
"""A kit for card games: multiset decks, draws, consistent re-deals, infoset folds.

Types and ``cdef inline ... noexcept nogil`` helpers only (``from
fagin.engines.cards cimport ...``): the rules' hot paths call them, and the C
compiler inlines them there.
Nothing here allocates, touches Python objects or keeps global state, so all
of it may run in the search loop.

Multisets.  A deck, a discard pile, a token bag or the cards one observer
has not seen is held as *counts per kind of card*: ``int16_t c[n]`` where
``c[t]`` is how many cards of kind ``t`` it holds.  Drawing is then a
uniform choice among the *cards* (a kind with 3 copies is 3 times as likely
as a kind with 1), which is what shuffling does.  Where the order of some
cards is known (cards put back on top of a deck, a hand in the order it was
drawn), the engine keeps those explicitly and only the unordered rest as a
multiset.  Layered decks (London: letter A above B above C) are several
multisets drawn top layer first: :func:`ms_draw_layers`.

Re-dealing (determinization).  An observer who has not seen some cards
knows their multiset (every card minus those it saw) and the places they
lie in (a deck, face-down hands, face-down piles), each with a number of
cards and perhaps a constraint it knows holds ("this pile has fewer than 13
bells, or the game would be over").  :func:`cards_deal_places` deals the
constrained places *exactly uniformly among the consistent worlds* — by
construction: it counts the ways to complete the deal and chooses in
proportion, so it never rejects and never fails when a consistent world
exists (the true one is one).  The unconstrained places then take the rest
with :func:`ms_deal_to` / the leftover counts, which keeps the whole deal
uniform (every consistent choice for the constrained places leaves the same
number of ways to place the rest).  Cards that must not mix (an older deck's
cards left after a reshuffle, London's letter layers) are separate
*sources*: a place says how many cards it takes from each source.

Infoset hashes.  An information-set key is a running 64-bit hash of what a
seat has observed, in order: :func:`cards_fold` folds one observed event
(an event tag, who, which card) with ``engines/rng.pxd``'s ``mix64``;
:func:`cards_fold_counts` folds a whole multiset (a face-up pile whose
order does not matter).  Fold only what the seat saw: a card seen by all
goes into the public hash, a card seen by one seat into that seat's own.
"""
from libc.stdint cimport int16_t, uint8_t, uint16_t, uint64_t
from fagin.engines.rng cimport Rng, rng_below, rng_double, mix64

cdef enum:
    CARDS_MAX_SOURCES = 32      # sources in one cards_deal_places call
    CARDS_MAX_CLASSES = 64      # (source, weight) classes in one call
    CARDS_MAX_PLACES = 16       # constrained places in one call
    CARDS_NO_CAP = 0x3FFFFFFF   # DealPlace.cap: no limit on the weight

# ------------------------------------------------------------ multisets

cdef inline int ms_total(const int16_t* c, int n) noexcept nogil:
    """Cards in the multiset ``c`` of ``n`` kinds."""
    cdef int t, total = 0
    for t in range(n):
        total += c[t]
    return total

cdef inline int ms_pick(const int16_t* c, int n, int index) noexcept nogil:
    """The kind of the ``index``-th card (0-based) when the cards are listed kind by kind;
    -1 if the multiset holds ``index`` cards or fewer.  With a uniform ``index`` this is a
    uniform draw (the caller removes the card if it is taken)."""
    cdef int t
    for t in range(n):
        index -= c[t]
        if index < 0:
            return t
    return -1

cdef inline int ms_draw(int16_t* c, int n, Rng* rng) noexcept nogil:
    """Takes one card uniformly at random out of ``c``; its kind, or -1 if ``c`` is empty."""
    cdef int total = ms_total(c, n), t
    if total <= 0:
        return -1
    t = ms_pick(c, n, <int>rng_below(rng, total))
    c[t] -= 1
    return t

cdef inline int ms_draw_where(int16_t* c, int n, const uint8_t* allowed, Rng* rng) noexcept nogil:
    """Takes one card uniformly at random among the cards of ``c`` whose kind ``t`` has
    ``allowed[t]`` set; its kind, or -1 if there is none."""
    cdef int t, total = 0, r
    for t in range(n):
        if allowed[t]:
            total += c[t]
    if total <= 0:
        return -1
    r = <int>rng_below(rng, total)
    for t in range(n):
        if allowed[t]:
            r -= c[t]
            if r < 0:
                c[t] -= 1
                return t
    return -1

cdef inline int ms_deal_to(int16_t* c, int n, uint8_t* out, int k, Rng* rng) noexcept nogil:
    """Deals ``k`` cards of ``c`` at random into ``out[0:k]`` (a face-down hand, cards on top
    of a deck); returns how many it could deal (fewer if ``c`` runs out)."""
    cdef int i, t
    for i in range(k):
        t = ms_draw(c, n, rng)
        if t < 0:
            return i
        out[i] = <uint8_t>t
    return k

cdef inline int ms_chance(const int16_t* c, int n, int first_action, int* actions,
                          double* probs) noexcept nogil:
    """The chance distribution of drawing one card of ``c``: action ``first_action + t`` for
    each kind ``t`` present, with probability count/total, in ascending order.  Returns the
    number of outcomes (at most ``n``; 0 if ``c`` is empty)."""
    cdef int t, m = 0
    cdef double total = ms_total(c, n)
    if total <= 0:
        return 0
    for t in range(n):
        if c[t] > 0:
            actions[m] = first_action + t
            probs[m] = c[t] / total
            m += 1
    return m

cdef inline int ms_draw_layers(int16_t* layers, int n_layers, int stride, int n, Rng* rng,
                               int* layer) noexcept nogil:
    """A deck in layers stacked top first (``layers[i * stride + t]``, layer 0 on top, as
    London's A above B above C): takes a uniform card of the topmost non-empty layer.
    Its kind, with the layer in ``layer[0]``; -1 if every layer is empty."""
    cdef int i, t
    for i in range(n_layers):
        t = ms_draw(layers + i * stride, n, rng)
        if t >= 0:
            if layer != NULL:
                layer[0] = i
            return t
    return -1

cdef inline void cards_shuffle(uint8_t* a, int n, Rng* rng) noexcept nogil:
    """Shuffles ``a[0:n]`` in place (Fisher-Yates)."""
    cdef int i, j
    cdef uint8_t tmp
    for i in range(n - 1, 0, -1):
        j = <int>rng_below(rng, i + 1)
        tmp = a[i]
        a[i] = a[j]
        a[j] = tmp

# ------------------------------------------------------------ re-dealing

ctypedef struct DealPlace:
    # Cards the place takes from each source (sources the call does not use stay 0).
    int need[CARDS_MAX_SOURCES]
    # The largest total weight its dealt cards may have (CARDS_NO_CAP: any; below 0: no
    # deal fits).  Example:
    # a victory pile whose owner would have won with 13 bells takes at most
    # 12 - (bells already known to be there).
    int cap
    # Receives the dealt kinds: need[0] cards from source 0, then need[1] from source 1,
    # ..., each source's cards in random order.
    uint8_t* out

ctypedef struct _DealWork:
    int m                                   # classes: (source, weight) with cards left
    int source[CARDS_MAX_CLASSES]
    int weight[CARDS_MAX_CLASSES]
    int left[CARDS_MAX_CLASSES]             # cards left in the class
    int k[CARDS_MAX_CLASSES]                # the composition chosen for the current place
    DealPlace* places
    int n_places

cdef inline double _cards_binom(int n, int k) noexcept nogil:
    cdef double r = 1.0
    cdef int i
    if k < 0 or k > n:
        return 0.0
    for i in range(k):
        r = r * (n - i) / (i + 1)
    return r

cdef inline int _cards_next_need(_DealWork* w, int i, int c) noexcept nogil:
    # What place i owes to class c's source when the enumeration reaches class c.
    return w.places[i].need[w.source[c]] if c < w.m else 0

cdef inline int _cards_kmax(_DealWork* w, int c, int need_left, int cap_left) noexcept nogil:
    cdef int kmax = need_left if need_left < w.left[c] else w.left[c]
    if w.weight[c] > 0 and cap_left // w.weight[c] < kmax:
        kmax = cap_left // w.weight[c]
    return kmax

cdef inline double _cards_comp(_DealWork* w, int i, int c, int need_left, int cap_left) noexcept nogil:
    # Ways to give place i the cards it still owes from class c on (need_left to class c's
    # source, at most cap_left weight), times the ways to fill places i+1.. from what is
    # left.  Ways are sets of distinct cards: the order within a place is dealt afterwards.
    cdef int kk, kmin, kmax, nxt, last
    cdef double total = 0.0, ways
    if cap_left < 0:
        return 0.0
    if c == w.m:
        if i + 1 == w.n_places:
            return 1.0
        return _cards_comp(w, i + 1, 0, _cards_next_need(w, i + 1, 0), w.places[i + 1].cap)
    last = c + 1 == w.m or w.source[c + 1] != w.source[c]
    kmax = _cards_kmax(w, c, need_left, cap_left)
    kmin = need_left if last else 0
    for kk in range(kmin, kmax + 1):
        ways = _cards_binom(w.left[c], kk)
        w.left[c] -= kk
        nxt = _cards_next_need(w, i, c + 1) if last else need_left - kk
        total += ways * _cards_comp(w, i, c + 1, nxt, cap_left - kk * w.weight[c])
        w.left[c] += kk
    return total

cdef inline double _cards_count(_DealWork* w, int i) noexcept nogil:
    # Ways to fill places i.. from the classes' cards left.
    if i == w.n_places:
        return 1.0
    return _cards_comp(w, i, 0, _cards_next_need(w, i, 0), w.places[i].cap)

cdef inline int _cards_pick(_DealWork* w, int i, int c, int need_left, int cap_left, double ways,
                            double* u) noexcept nogil:
    # The same enumeration as _cards_comp, stopping at the composition where the mass u runs
    # out: it is left in w.k with w.left reduced by it; returns 1 then, else 0.
    cdef int kk, kmin, kmax, nxt, last
    cdef double here
    if cap_left < 0:
        return 0
    if c == w.m:
        here = ways * _cards_count(w, i + 1)
        if u[0] < here:
            return 1
        u[0] -= here
        return 0
    last = c + 1 == w.m or w.source[c + 1] != w.source[c]
    kmax = _cards_kmax(w, c, need_left, cap_left)
    kmin = need_left if last else 0
    for kk in range(kmin, kmax + 1):
        w.k[c] = kk
        here = ways * _cards_binom(w.left[c], kk)
        w.left[c] -= kk
        nxt = _cards_next_need(w, i, c + 1) if last else need_left - kk
        if here > 0.0 and _cards_pick(w, i, c + 1, nxt, cap_left - kk * w.weight[c], here, u):
            return 1
        w.left[c] += kk
    return 0

cdef inline int _cards_class_total(const int16_t* ms, int n_kinds, const uint8_t* allowed,
                                   const int* weight, int wt) noexcept nogil:
    cdef int t, total = 0
    for t in range(n_kinds):
        if (allowed == NULL or allowed[t]) and (weight[t] if weight != NULL else 0) == wt:
            total += ms[t]
    return total

cdef inline int cards_deal_places(int16_t* src, int stride, int n_sources, int n_kinds,
                                  const uint8_t* allowed, const int* weight,
                                  DealPlace* places, int n_places, Rng* rng) noexcept nogil:
    """Deals the constrained places of a re-deal, uniformly among the consistent deals.

    ``src`` holds ``n_sources`` multisets of ``n_kinds`` kinds, source ``s`` at
    ``src + s * stride``: the unseen cards of each source.  Place ``i`` takes
    ``places[i].need[s]`` cards of kinds ``t`` with ``allowed[t]`` set (NULL: any kind)
    from each source ``s``, whose ``weight[t]`` (NULL: all 0) sum to at most
    ``places[i].cap``.  Each distinct-card assignment that meets every constraint is
    equally likely; the dealt cards are written to ``places[i].out`` and removed from
    ``src``, whose remainder is for the unconstrained places.

    Returns 1 once dealt; 0 if no deal meets the constraints (``src`` unchanged); -1 if
    the call is beyond the kit's fixed bounds (more than CARDS_MAX_SOURCES sources,
    CARDS_MAX_PLACES places or CARDS_MAX_CLASSES (source, weight) classes; ``src``
    unchanged).  Cost: the number of ways to split each place's need among the classes,
    multiplied over the places — small for a few piles of a few cards with weights
    of one or two sizes (a victory pile of Bell cards), large for many big capped
    places; uncapped places should be dealt with :func:`ms_deal_to` instead.
    The counts are doubles: exact enough for up to a few hundred cards.
    """
    cdef _DealWork w
    cdef int s, t, c, i, kk, pos, wt, found, seg, r
    cdef int16_t* ms
    cdef double total, u
    if n_sources > CARDS_MAX_SOURCES or n_places > CARDS_MAX_PLACES:
        return -1
    w.m = 0
    w.places = places
    w.n_places = n_places
    # The classes: each source's allowed cards grouped by weight, sources in order.
    for s in range(n_sources):
        ms = src + s * stride
        for t in range(n_kinds):
            if ms[t] <= 0 or (allowed != NULL and not allowed[t]):
                continue
            wt = weight[t] if weight != NULL else 0
            found = -1
            for c in range(w.m):
                if w.source[c] == s and w.weight[c] == wt:
                    found = c
            if found < 0:
                if w.m == CARDS_MAX_CLASSES:
                    return -1
                found = w.m
                w.m += 1
                w.source[found] = s
                w.weight[found] = wt
                w.left[found] = 0
                w.k[found] = 0
            w.left[found] += ms[t]
    # A place owing cards to a source without allowed cards cannot be dealt.
    for i in range(n_places):
        for s in range(n_sources):
            if places[i].need[s] > 0:
                found = 0
                for c in range(w.m):
                    if w.source[c] == s:
                        found = 1
                if not found:
                    return 0
    if _cards_count(&w, 0) <= 0.0:
        return 0
    for i in range(n_places):
        total = _cards_count(&w, i)
        u = rng_double(rng) * total
        if not _cards_pick(&w, i, 0, _cards_next_need(&w, i, 0), places[i].cap, 1.0, &u):
            # Rounding left u past the last composition: take the first feasible one.
            u = 0.0
            _cards_pick(&w, i, 0, _cards_next_need(&w, i, 0), places[i].cap, 1.0, &u)
        # The chosen composition says how many cards of each class; which cards of a class
        # is a uniform draw (they all weigh the same), and their order is random.
        pos = 0
        for s in range(n_sources):
            seg = pos
            ms = src + s * stride
            for c in range(w.m):
                if w.source[c] != s:
                    continue
                kk = w.k[c]
                while kk > 0:
                    kk -= 1
                    r = <int>rng_below(rng, _cards_class_total(ms, n_kinds, allowed, weight, w.weight[c]))
                    for t in range(n_kinds):
                        if ms[t] > 0 and (allowed == NULL or allowed[t]) and \
                                (weight[t] if weight != NULL else 0) == w.weight[c]:
                            r -= ms[t]
                            if r < 0:
                                ms[t] -= 1
                                places[i].out[pos] = <uint8_t>t
                                pos += 1
                                break
            cards_shuffle(places[i].out + seg, pos - seg, rng)
    return 1

# ------------------------------------------------------------ infoset folds

cdef inline uint64_t cards_fold(uint64_t h, int event, int who, int card) noexcept nogil:
    """Folds one observed event into the running hash ``h`` (order-sensitive): an event tag
    of the game's choosing, a seat (or place) and a card kind (or any small number), each
    below 65536; use -1 for "none" (it folds as 0xFFFF)."""
    return mix64(h, ((<uint64_t>(event & 0xFFFF)) << 32) | ((<uint64_t>(who & 0xFFFF)) << 16)
                 | <uint64_t>(card & 0xFFFF))

cdef inline uint64_t cards_fold_packed(uint64_t h, const int16_t* a, int n) noexcept nogil:
    """Folds n 16-bit values (counts, or a board's small per-space codes) into ``h``, four to a
    word: a dense array costs a quarter of the mixing of one value at a time (Oliver Twist's
    view key, where that mixing was a sixth of a search's time)."""
    cdef uint64_t w = 0
    cdef int i, j = 0
    for i in range(n):
        w |= (<uint64_t>(<uint16_t>a[i])) << (16 * j)
        j += 1
        if j == 4:
            h = mix64(h, w)
            w = 0
            j = 0
    if j:
        h = mix64(h, w)
    return h

cdef inline uint64_t cards_fold_counts(uint64_t h, int event, const int16_t* c, int n) noexcept nogil:
    """Folds a whole multiset (a face-up pile whose order does not matter) into ``h``."""
    cdef int t
    h = cards_fold(h, event, n, -1)
    for t in range(n):
        if c[t]:
            h = cards_fold(h, event, t, c[t])
    return h
