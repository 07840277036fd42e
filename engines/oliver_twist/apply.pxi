# Oliver Twist: applying an action, phase by phase (a Character card played among them).
# Included by engine.pyx, so that its functions compile (and inline) with the rules.

cdef void play_card(OTState* s, int c) noexcept nogil:
    """OT-8: the Character effects."""
    cdef int p = s.active, q, pay, k, n
    s.hand[p] &= ~(1 << c)
    s.char_disc |= 1 << c
    if c == C_DODGER:
        s.phase = PH_DODGER
    elif c == C_NANCY:
        n = s.stash[p][K_WALLET] + s.stash[p][K_SWALLET]
        s.bag[K_WALLET] += s.stash[p][K_WALLET]
        s.aside[K_SWALLET] += s.stash[p][K_SWALLET]
        s.stash[p][K_WALLET] = 0
        s.stash[p][K_SWALLET] = 0
        s.money[p] += WALLET_CASH * n
        end_turn(s)
    elif c == C_SIKES:
        for q in range(s.players):
            if q != p:
                pay = SIKES_TAKE if s.money[q] >= SIKES_TAKE else s.money[q]
                s.money[q] -= pay
                s.money[p] += pay
        end_turn(s)
    elif c == C_BUMBLE:
        s.pick_left = 2
        s.pick_dest = PICK_BAG
        s.pick_last = 0
        s.phase = PH_PICK
    elif c == C_NOAH:
        s.phase = PH_PLACE
    elif c == C_CHARLEY:
        s.phase = PH_TURN
        s.restrict = R_PROWL
        s.path_max = LINE_CHARLEY
    elif c == C_OLIVER:
        s.phase = PH_TURN
        s.restrict = R_PROWL
        s.extra = 1
    elif c == C_BROWNLOW:
        s.money[p] += REWARDS[s.rewards_taken]
        s.rewards_taken += 1
        end_turn(s)
    elif c == C_TOBY:
        start_burglary(s, TOBY_EXTRA)
    elif c == C_FANG:
        s.phase = PH_TARGET
    elif c == C_SOWERBERRY:
        n = 0
        for k in range(N_SET_TYPES):
            if type_reals(s, p, k) > 0:
                n += 1
        s.money[p] += n
        end_turn(s)
    elif c == C_BET:
        s.pick_left = 1
        s.pick_dest = PICK_STASH
        s.pick_last = 0
        s.phase = PH_PICK
    elif c == C_GRIMWIG:
        s.phase = PH_TURN
        s.restrict = R_FAGIN

cdef void ot_apply_action(void* st, int action) noexcept nogil:
    """Applies an action, then every decision left with one option (OT-37)."""
    cdef OTState* s = <OTState*>st
    cdef int buf[NUM_ACTIONS]
    apply_one(s, action)
    while ot_current_player(s) >= 0 and ot_legal_actions(s, buf) == 1:
        apply_one(s, buf[0])

cdef void apply_one(OTState* s, int action) noexcept nogil:
    cdef int p = s.active, k, sp, c, i, t
    if s.phase == PH_FILL:
        k = action - A_CH_TOKEN
        s.bag[k] -= 1
        s.board[s.fill_next] = k
        s.fill_next += 1
        advance_fill(s)
    elif s.phase == PH_DEAL:
        k = action - A_CH_TOKEN
        s.aside[k] -= 1
        s.stash[deal_seat(s)][k] += 1
        s.deal_left -= 1
        if s.deal_left == 0:
            after_deal(s)
    elif s.phase == PH_FLIP:
        k = action - A_CH_TOKEN
        s.fdpool[k] -= 1
        s.board[s.flip_target] = k
        s.known[s.flip_target] = 0
        s.flips_left -= 1
        s.flip_from = s.flip_target
        s.flip_target = -1
        next_flip(s)
    elif s.phase == PH_PEEK_DRAW:
        k = action - A_CH_TOKEN
        s.fdpool[k] -= 1
        s.board[s.flip_target] = FD_BASE + k
        s.known[s.flip_target] = 1 << p
        s.flip_target = -1
        after_peek(s)
    elif s.phase == PH_CHAR_DRAW:
        c = action - A_CH_CHAR
        s.char_draw &= ~(1 << c)
        s.hand[p] |= 1 << c
        finish_prowl(s)
    elif s.phase == PH_BURG_DRAW:
        k = action - A_CH_BURG
        s.burg_draw[k] -= 1
        s.burg_drawn[k] += 1
        s.burg_to_draw -= 1
        if s.burg_to_draw == 0:
            t = -1
            c = 0
            for i in range(N_BURGLARY_VALUES):
                c += s.burg_drawn[i]
                if s.burg_drawn[i] > 0:
                    t = i
            if c == 1:
                keep_burglary(s, t)
            else:
                s.phase = PH_BURG_KEEP
    elif s.phase == PH_TURN:
        if action < A_TAKE:
            sp = action - A_SPACE
            if face_up(s.board[sp]):
                s.path[0] = sp
                s.path_len = 1
                s.phase = PH_PATH
            else:
                s.flips_left = FLIPS
                s.flip_from = -1
                flip_at(s, sp)
        elif action == A_RELOCATE:
            s.money[p] -= 2 if s.money[p] >= 2 else s.money[p]      # OT-15
            if s.night:
                s.peeks_left = PEEKS
                if peekable(s, NULL) > 0:
                    s.phase = PH_PEEK
                else:
                    s.peeks_left = 0
                    s.phase = PH_PLACE
            else:
                s.phase = PH_PLACE
        elif action == A_GIVE_UP:
            s.money[p] -= 4 if s.money[p] >= 4 else s.money[p]      # OT-20
            end_round(s)
        elif action == A_DONE:
            end_turn(s)                               # Mr Grimwig without a set (OT-31)
        elif action < A_KIND:
            s.fagin_type = action - A_FAGIN
            s.fagin_min = 2 if s.restrict == R_FAGIN else 3
            s.set_last = 0
            s.restrict = R_NONE
            s.phase = PH_FAGIN
        elif A_PLAY <= action < A_HIDE:
            play_card(s, action - A_PLAY)
        elif A_HIDE <= action < A_SEAT:
            c = action - A_HIDE                       # OT-20: hide, the turn passes
            s.hand[p] &= ~(1 << c)
            s.char_disc |= 1 << c
            end_turn(s)
    elif s.phase == PH_PATH:
        if action == A_TAKE:
            take_line(s)
        else:
            s.path[s.path_len] = action - A_SPACE
            s.path_len += 1
    elif s.phase == PH_FLIP_DIR:
        flip_at(s, action - A_SPACE)
    elif s.phase == PH_PEEK:
        sp = action - A_SPACE
        if s.board[sp] == FD_UNDET:
            s.flip_target = sp
            s.phase = PH_PEEK_DRAW
        else:
            s.known[sp] |= 1 << p
            after_peek(s)
    elif s.phase == PH_PLACE:
        s.pawn = action - A_SPACE
        after_place(s)
    elif s.phase == PH_DODGER:
        sp = action - A_SPACE
        k = s.board[sp]
        s.board[sp] = EMPTY
        receive(s, k)
    elif s.phase == PH_SWAP:
        k = action - A_KIND
        s.stash[p][k] -= 1
        s.pfile[p][k] += 1
        s.stash[p][s.pending] += 1
        s.pending = -1
        finish_prowl(s)
    elif s.phase == PH_FAGIN:
        if action == A_DONE:
            deliver(s)
        else:
            k = action - A_KIND
            s.stash[p][k] -= 1
            s.setc[k] += 1
            s.set_last = k
    elif s.phase == PH_PICK:
        if action == A_DONE:
            end_turn(s)
            return
        k = action - A_KIND
        s.pfile[p][k] -= 1
        if s.pick_dest == PICK_BAG:
            to_pile(s, k)
        elif s.pick_dest == PICK_STASH:
            s.stash[p][k] += 1
        else:
            s.pfile[s.pick_dest][k] += 1
        s.pick_left -= 1
        s.pick_last = k
        if s.pick_left == 0 or file_n(s, p) == 0 or \
                (s.pick_dest == PICK_STASH and not file_has_object(s, p)):
            end_turn(s)
        else:
            # the next pick must still be possible in ascending order
            c = 0
            for k in range(s.pick_last, N_KINDS):
                if s.pfile[p][k] > 0 and (s.pick_dest != PICK_STASH or KOBJ[k]):
                    c = 1
            if not c:
                end_turn(s)
    elif s.phase == PH_TARGET:
        s.pick_left = 2
        s.pick_dest = action - A_SEAT
        s.pick_last = 0
        s.phase = PH_PICK
    elif s.phase == PH_CHOOSE_START:
        s.active = action - A_SEAT
        start_turn(s)
    elif s.phase == PH_BURG_KEEP:
        keep_burglary(s, action - A_KEEP)
    elif s.phase == PH_TOOL:
        t = action - A_TOOL
        s.front[p][K_TOOL0 + t] -= 1
        s.bag[K_TOOL0 + t] += 1
        finish_prowl(s)
