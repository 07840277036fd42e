"""The London rule-based bot: a plain economic game, scored card by card.

What the bot may read.  It is handed the real state, and reads it through
``engine._raw`` but looks only at what its seat knows (LN-83 to LN-86):

* public fields: every seat's ``money``, ``loans``, ``vp``, ``poverty`` and
  ``hand_n``; every Building Display (``pc_n``, ``stacks``, ``pc_version``,
  ``pc_flags``, ``pc_money``); the Card Display (``display``, ``display_n``);
  ``discard``; ``owner`` and ``underground``; how many cards the deck holds
  (``deck`` summed, plus ``top_n``); the phase and turn fields (``phase``,
  ``active``, ``draw_for``, ``draws_*``, ``pending``, ``effect_card``,
  ``last_round``, ``turns_left``, ...);
* its own hand, ``hand[seat]``, and the cards University of London shows it
  (``look``) while it is the active player looking at them.

It never reads another seat's ``hand``, ``known`` or ``owner_sure``, the
deck's composition by version, or ``top`` (it does not need ``top`` even as
the University owner).

The strategy, in VP-equivalents (a pound is worth about 0.4 VP during the
game: it buys buildings and land; a poverty point about 1.5 VP at the end,
LN-79): build money engines and cheap VP cards early, high-VP buildings
when the money is there, buy land whenever it is affordable (VP, cards, and
one poverty point fewer at every later Run City, LN-44), run the city when
the activatable cards yield more than the poverty the run adds (stacks plus
hand minus boroughs), keep the hand small before a run, take a good card
from the Card Display but otherwise the deck, Take Three Cards when the hand
is thin, avoid loans unless the gain pays for them (a loan costs about 7 VP
at the end, LN-78), and cover flipped cards rather than start new stacks.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from fagin.engines.london import engine as E

MONEY_W = 0.4           # VP per £ during the game
POVERTY_W = 1.5         # VP per poverty point
LOAN_COST = 3.0         # a loan's net cost in VP beyond the money it gives (7 VP less £10 at MONEY_W)
CARD_DRAW = 0.9         # value of an unknown card from the deck

_PH = {name: i for i, name in enumerate(E.PHASES)}
_F_DOWN = E.FLAGS["down"]
_F_COVERED = E.FLAGS["covered"]
_F_PLACED_NOW = E.FLAGS["placed_this_turn"]
_F_ACTIVATED = E.FLAGS["activated"]
_KIND_BASE = E.ACTION_KINDS
_KR = E.KIND_RANGE
_RANGE = {name: i for i, name in enumerate(E.RANGES)}


def _effects(card):
    """{effect code: params dict} of a card's activation."""
    a = card.activation
    if a is None:
        return {}
    return {p.code: dict(p.params) for p in a.effects}


class _Tables:
    """Per-version facts copied from the component data once."""

    def __init__(self):
        cards = E.CARDS
        self.n = len(cards)
        self.colour = [E.COLOURS.index(c.colour) for c in cards]
        self.cost = [c.cost for c in cards]
        self.vp = [c.vp for c in cards]
        self.base = [c.base for c in cards]
        self.pauper = [c.colour == "grey" for c in cards]
        self.perm = [{p.code: dict(p.params) for p in c.permanent} for c in cards]
        self.handp = [{p.code: dict(p.params) for p in c.hand} for c in cards]
        self.no_expend = [any(p.code == "placed_without_expending" for p in c.play) for c in cards]
        self.act = [c.activation is not None for c in cards]
        self.flip = [bool(c.activation and c.activation.flip) for c in cards]
        self.act_cost = [(c.activation.cost.kind if c.activation else "none") for c in cards]
        self.act_colour = [(c.activation.cost.colour if c.activation else None) for c in cards]
        self.act_money = [(c.activation.cost.amount if c.activation else 0) for c in cards]
        self.eff = [_effects(c) for c in cards]
        self.hospital = ["flip_in_place_of_another" in e for e in self.eff]
        self.kind_version = [vs[0] for vs in E.KINDS]
        boroughs = E.BOROUGHS
        self.b_cost = [b.cost for b in boroughs]
        self.b_cards = [b.cards for b in boroughs]
        self.b_vp = [b.vp for b in boroughs]
        self.b_north = [b.bank == "north" for b in boroughs]
        self.b_thames = [b.thames for b in boroughs]
        index = {b.id: i for i, b in enumerate(boroughs)}
        self.b_adj = [{index[n] for n in b.neighbours} for b in boroughs]
        self.b_cross = [{index[n] for n in b.bridges} for b in boroughs]


T = _Tables()


def _static_keep(v):
    """A hand card's fixed worth, from its printed values alone."""
    if T.pauper[v]:
        return -1.0
    if "discard_to_place_any_colour" in T.handp[v]:
        return 1.5
    if "discard_to_draw" in T.handp[v]:
        return 1.0
    if not T.base[v]:
        return 0.0
    e = T.eff[v]
    x = T.vp[v] + _perm_value(v) - MONEY_W * T.cost[v]
    if T.act[v]:
        g = MONEY_W * e.get("gain_money", {}).get("amount", 0) + e.get("gain_vp", {}).get("amount", 0) \
            + POVERTY_W * e.get("discard_poverty", {}).get("amount", 0) \
            - POVERTY_W * e.get("take_poverty", {}).get("amount", 0) + 1.0 * (len(e) > 0)
        x += g * (1.0 if T.flip[v] else 2.0)
    return 0.5 + 0.5 * max(0.0, x)


def _perm_value(v):
    """What a permanent power is worth over a game (rough VP)."""
    p = T.perm[v]
    x = 0.0
    if "expend_any_colour_for_money" in p:
        x += 2.0
    if "look_at_deck_when_drawing" in p:
        x += 1.5
    if "swap_hand_with_display" in p:
        x += 1.0
    if "loan_amount" in p:
        x += 0.5
    if "store_money_on_card" in p:
        x += 1.5
    if "hand_not_counted_for_poverty" in p:
        x += 4.0
    if "draw_count_choice" in p:
        x += 1.5
    return x


T.static_keep = [_static_keep(v) for v in range(T.n)]


class _View:
    """The facts the bot uses, read from the raw state as ``seat`` may know them."""

    def __init__(self, raw, seat):
        self.raw = raw
        self.me = seat
        self.players = raw["players"]
        self.hand = raw["hand"][seat][:T.n]
        self.money = raw["money"][seat]
        self.poverty = raw["poverty"]
        self.deck_n = sum(raw["deck"][:T.n]) + raw["top_n"]
        self.pc_n = raw["pc_n"][seat]
        self.pcv = raw["pc_version"][seat][:self.pc_n]
        self.pcf = raw["pc_flags"][seat][:self.pc_n]
        self.owner = raw["owner"]
        self.my_boroughs = sum(1 for o in self.owner if o == seat)
        self.stacks = raw["stacks"][seat]
        # Turns of mine still to come (every turn takes about 1.4 cards off the deck).
        if raw["last_round"]:
            self.turns_left = 0
        else:
            self.turns_left = max(0.0, self.deck_n / 1.4 / self.players)
        self.runs_left = self.turns_left / 3.0
        self.pub = any((f & (_F_DOWN | _F_COVERED)) == 0 and "hand_not_counted_for_poverty" in T.perm[v]
                       for v, f in zip(self.pcv, self.pcf))
        self.school = any((f & (_F_DOWN | _F_COVERED)) == 0 and "expend_any_colour_for_money" in T.perm[v]
                          for v, f in zip(self.pcv, self.pcf))

    def colour_in_hand(self, colour):
        return sum(n for v, n in enumerate(self.hand) if n and T.colour[v] == colour)

    def count_display(self, params):
        colours = {E.COLOURS.index(c) for c in params["colours"]}
        n = 0
        for v, f in zip(self.pcv, self.pcf):
            if (f & _F_COVERED) and not params["covered"]:
                continue
            if (f & _F_DOWN) and not params["flipped"]:
                continue
            if T.colour[v] in colours:
                n += 1
        return n

    def boroughs_in(self, which):
        n = 0
        for b, o in enumerate(self.owner):
            if o != self.me:
                continue
            if which == "all" or (which == "thames" and T.b_thames[b]) or (which == "north" and T.b_north[b]) \
                    or (which == "south" and not T.b_north[b]):
                n += 1
        return n


def act_gain(view, v, pc_index=None, with_cost=True):
    """What one activation of version ``v`` in ``view.me``'s display yields now (VP-equivalents)."""
    e = T.eff[v]
    raw = view.raw
    money = e.get("gain_money", {}).get("amount", 0)
    if "money_per_borough" in e:
        money += e["money_per_borough"]["amount"] * view.boroughs_in(e["money_per_borough"]["boroughs"])
    if "money_per_card_in_display" in e:
        money += e["money_per_card_in_display"]["amount"] * view.count_display(e["money_per_card_in_display"])
    if "collect_money_on_card" in e and pc_index is not None:
        money += raw["pc_money"][view.me][pc_index]
    if "others_pay_you" in e:
        money += e["others_pay_you"]["amount"] * (view.players - 1)
    vp = e.get("gain_vp", {}).get("amount", 0)
    if "vp_per_card_in_display" in e:
        vp += e["vp_per_card_in_display"]["amount"] * view.count_display(e["vp_per_card_in_display"])
    pov = view.poverty[view.me]
    x = MONEY_W * money + vp
    x += POVERTY_W * min(pov + 2, e.get("discard_poverty", {}).get("amount", 0))
    x -= POVERTY_W * e.get("take_poverty", {}).get("amount", 0)
    if "place_underground" in e:
        x += 2.0 * e["place_underground"]["markers"] * 0.6
    if "opponent_takes_poverty" in e:
        x += 1.0
    if "give_poverty" in e and pov > 0:
        x += POVERTY_W
    if "expend_cards_for_poverty" in e:
        cheap = sum(n for w, n in enumerate(view.hand) if n and T.static_keep[w] < 1.5)
        k = min(cheap, e["expend_cards_for_poverty"]["max_cards"])
        x += k * (POVERTY_W * (1 if pov > 0 else 0) + e["expend_cards_for_poverty"]["vp_per_card"] + 0.5)
    if "expend_paupers" in e:
        x += sum(n for w, n in enumerate(view.hand) if n and T.pauper[w]) * (MONEY_W + POVERTY_W + 1.0)
    if "others_pay_bank_per_borough" in e:
        x += 0.3 * sum(1 for o in view.owner if o >= 0 and o != view.me)
    if "place_from_display_on_this" in e:
        best = 0.0
        for r in range(2):
            for i in range(raw["display_n"][r]):
                w = raw["display"][r][i]
                if T.base[w]:
                    best = max(best, 2.0 * T.static_keep[w] - 1.0 + 1.0)
        x += best
    if "reactivate_another" in e:
        best = 0.0
        for i, (w, f) in enumerate(zip(view.pcv, view.pcf)):
            if i != pc_index and (f & _F_ACTIVATED) and not (f & _F_COVERED) and T.act[w] and not T.hospital[w]:
                best = max(best, act_gain(view, w, i, with_cost=False))
        x += best
    if with_cost:
        c = T.act_cost[v]
        if c == "money":
            x -= MONEY_W * T.act_money[v] + (LOAN_COST if view.money < T.act_money[v] else 0.0)
        elif c == "expend":
            # A card from the hand: little lost if it is a weak one, and one card fewer for Run City's poverty.
            x -= max(0.0, _worst_static_keep(view, blue=T.act_colour[v] == "blue")) - 0.5
    return x


def _worst_static_keep(view, blue=False):
    """The hand card cheapest to expend, by its fixed worth (no recursion into the display)."""
    best = None
    for w, n in enumerate(view.hand):
        if n and (not blue or T.colour[w] == 0):
            k = T.static_keep[w]
            if best is None or k < best:
                best = k
    return best if best is not None else 0.0


def _worst_keep(view, blue=False):
    best = None
    for w, n in enumerate(view.hand):
        if n and (not blue or T.colour[w] == 0):
            k = _keep_value(view, w)
            if best is None or k < best:
                best = k
    return best if best is not None else 0.0


def _placed_value(view, v):
    """What version ``v`` face up in the display is worth over the rest of the game."""
    x = T.vp[v] + _perm_value(v) * min(1.0, view.turns_left / 8.0)
    if T.act[v] and not T.hospital[v]:
        g = act_gain(view, v, with_cost=True)
        if g > 0:
            uses = 1.0 if T.flip[v] else max(1.0, min(3.0, view.runs_left))
            x += g * uses * (0.8 if view.turns_left > 1 else 0.0)
    if T.hospital[v]:
        x += 1.0
    return x


def _keep_value(view, v):
    """How much the bot would miss hand card ``v``."""
    if T.pauper[v]:
        return -1.0
    hp = T.handp[v]
    if "discard_to_place_any_colour" in hp:
        return 1.5
    if "discard_to_draw" in hp:
        return 1.0
    if not T.base[v]:
        return 0.0
    return 0.5 + 0.5 * max(0.0, _placed_value(view, v) - MONEY_W * T.cost[v])


def _new_stack_cost(view):
    return POVERTY_W * min(view.runs_left, 4.0) * 0.5


def _cover_cost(view, i):
    """What covering stack top ``i`` loses."""
    v, f = view.pcv[i], view.pcf[i]
    if f & _F_DOWN:
        return 0.0
    x = _perm_value(v) * min(1.0, view.turns_left / 8.0)
    if T.act[v]:
        g = act_gain(view, v, i)
        if g > 0:
            x += g * (1.0 if T.flip[v] else max(1.0, min(3.0, view.runs_left)))
    if "store_money_on_card" in T.perm[v]:
        x += MONEY_W * view.raw["pc_money"][view.me][i]
    return x


def _best_where_cost(view):
    best = _new_stack_cost(view)
    for i, f in enumerate(view.pcf):
        if not (f & (_F_COVERED | _F_PLACED_NOW)):
            best = min(best, _cover_cost(view, i))
    return best


def _place_score(view, v, money):
    """Placing hand card ``v`` now: its value less its £ cost (loans), the card expended and where it goes."""
    cost = T.cost[v]
    x = _placed_value(view, v) - MONEY_W * cost
    if cost > money:
        x -= LOAN_COST * ((cost - money + 9) // 10)
    if not T.no_expend[v]:
        x -= max(0.0, _cheapest_expend(view, v)) * 0.6
    x -= _best_where_cost(view)
    return x


def _cheapest_expend(view, v):
    best = None
    seen_self = False
    for w, n in enumerate(view.hand):
        if not n:
            continue
        k = n - (1 if w == v else 0)
        if k <= 0:
            continue
        if T.colour[w] == T.colour[v]:
            c = _keep_value(view, w)
        elif view.school:
            c = _keep_value(view, w) + MONEY_W
        else:
            continue
        if best is None or c < best:
            best = c
    return best if best is not None else 0.0


def _run_score(view):
    """Running the city now: the good activations less the poverty the run adds (LN-44)."""
    gains = 0.0
    expends = 0
    for i, (v, f) in enumerate(zip(view.pcv, view.pcf)):
        if f & (_F_DOWN | _F_COVERED) or not T.act[v] or T.hospital[v]:
            continue
        c = T.act_cost[v]
        if c == "expend" and view.raw["hand_n"][view.me] - expends <= 0:
            continue
        if c == "expend" and T.act_colour[v] == "blue" and view.colour_in_hand(0) == 0:
            continue
        g = act_gain(view, v, i)
        if T.flip[v] and view.turns_left > 2:
            g -= 0.3            # a flipped card is spent
        if g > 0:
            gains += g
            if c == "expend":
                expends += 1
    hand = 0 if view.pub else view.raw["hand_n"][view.me] - expends
    delta = view.stacks + hand - view.my_boroughs
    if delta < 0:
        delta = max(delta, -view.poverty[view.me])
    return gains - POVERTY_W * delta, gains


def _buy_score(view, b):
    money = view.money
    cost = T.b_cost[b]
    x = T.b_vp[b] + POVERTY_W * min(view.runs_left, 6.0) * 0.7 - MONEY_W * cost
    hand_room = max(0, 9 - view.raw["hand_n"][view.me])
    x += CARD_DRAW * min(T.b_cards[b], hand_room) * (1.0 if view.turns_left > 2 else 0.2)
    if cost > money:
        x -= LOAN_COST * ((cost - money + 9) // 10) + 1.0
    return x


@dataclass
class LondonHeuristicBot:
    """A rule-based London player (see the module docstring for what it reads and how it plays)."""

    name: str = "heuristic"

    def choose(self, state, seat, seed):
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        raw = E._raw(state.to_bytes())
        view = _View(raw, seat)
        rng = random.Random(seed)
        scores = {a: self._score(view, raw["phase"], a) for a in legal}
        top = max(scores.values())
        return rng.choice([a for a, s in scores.items() if s >= top - 1e-9])

    # One score per legal action; the highest is played.
    def _score(self, view, ph, a):
        raw = view.raw
        hand_n = raw["hand_n"][view.me]
        if a >= _KIND_BASE:
            r, k = divmod(a - _KIND_BASE, _KR)
            v = T.kind_version[k]
            return self._kind_score(view, ph, r, v, k)
        if ph == _PH["look"]:
            return 1.0 if a == E.ACTION_LOOK else 0.0
        if ph in (_PH["source"], _PH["take_looked"]):
            if a == E.ACTION_DECK:
                # Late in the game the deck ends it sooner; the hand is poverty at the end (LN-77).
                return CARD_DRAW * (1.0 if view.turns_left > 2 else 0.1) - 0.1 * max(0, hand_n - 6)
            if a == E.ACTION_STOP:
                return 0.5 if hand_n >= 7 else -1.0
            return 0.0
        if ph == _PH["swap"]:
            return 1.5            # no swap unless a Display card beats the worst hand card by this
        if ph == _PH["action"]:
            if a == E.ACTION_RUN_CITY:
                return _run_score(view)[0]
            if a == E.ACTION_PLAY_CARDS:
                return self._play_action_score(view)
            if a == E.ACTION_BUY_LAND:
                return max(_buy_score(view, b) for b in range(len(T.b_cost))
                           if self._buyable(raw, b)) + 0.5
            if a == E.ACTION_TAKE_THREE:
                late = view.turns_left <= 2
                return (3 * CARD_DRAW - 0.6 * max(0, hand_n - 3)) * (0.2 if late else 1.0)
        if ph == _PH["play"] and a == E.ACTION_DONE:
            return 0.3
        if ph == _PH["run"] and a == E.ACTION_DONE:
            return 0.0
        if ph == _PH["where"] and a == E.ACTION_NEW_STACK:
            return -_new_stack_cost(view)
        if ph in (_PH["prison"], _PH["workhouse"], _PH["hospital"]) and a == E.ACTION_STOP:
            return 0.0 if ph != _PH["hospital"] else 0.5
        if E.ACTION_PLAYER <= a < E.ACTION_PLAYER + 4:
            q = a - E.ACTION_PLAYER
            # Poverty to the seat with the least (it sets everyone's penalty, LN-79), then the leader.
            return -raw["poverty"][q] + 0.01 * raw["vp"][q]
        if E.ACTION_BUY <= a < E.ACTION_BUY + 20:
            return _buy_score(view, a - E.ACTION_BUY)
        if E.ACTION_COUNTER <= a < E.ACTION_COUNTER + 20:
            return self._counter_score(view, a - E.ACTION_COUNTER)
        return 0.0

    @staticmethod
    def _buyable(raw, b):
        owner = raw["owner"]
        if owner[b] >= 0:
            return False
        occupied = {i for i, o in enumerate(owner) if o >= 0}
        if not occupied:
            return E.BOROUGHS[b].start
        return bool(T.b_adj[b] & occupied)

    def _play_action_score(self, view):
        money = view.money
        scores = sorted((_place_score(view, v, money) for v, n in enumerate(view.hand)
                         if n and T.base[v] and self._payable(view, v)), reverse=True)
        if not scores:
            return -5.0
        total = scores[0] + sum(s for s in scores[1:3] if s > 0)
        return total

    @staticmethod
    def _payable(view, v):
        if T.no_expend[v]:
            return True
        same = view.colour_in_hand(T.colour[v])
        return same >= 2 or (view.school and sum(view.hand) >= 2)

    def _counter_score(self, view, b):
        raw = view.raw
        x = 0.0
        owner = raw["owner"][b]
        if owner == view.me:
            x += 2.0
        elif owner >= 0:
            x -= 0.5
        net = {i for i, u in enumerate(raw["underground"]) if u}
        if net and not ((T.b_adj[b] - T.b_cross[b]) & net):
            x -= MONEY_W * 3
        return x

    def _kind_score(self, view, ph, r, v, k):
        raw = view.raw
        name = E.RANGES[r]
        if name in ("take_top", "take_bottom", "take_looked"):
            # The deck by default (the game moves on); a Display card only when clearly good, and never
            # one the full hand would cut again.
            x = _keep_value(view, v) - (0.0 if name == "take_looked" else 1.5)
            if raw["hand_n"][view.me] >= 8 and _keep_value(view, v) <= _worst_keep(view):
                x -= 5.0
            return x * (0.3 if view.turns_left <= 2 else 1.0)
        if name == "put_back":
            return -_keep_value(view, v)             # the worst goes back first (drawn next)
        if name in ("swap_top", "swap_bottom"):
            return _keep_value(view, v) - _worst_keep(view)
        if name in ("give", "expend", "cut"):
            x = -_keep_value(view, v)
            if ph == _PH["prison"]:
                pov = view.poverty[view.me]
                e = T.eff[view.pcv[raw["effect_card"]]]["expend_cards_for_poverty"]
                x += (POVERTY_W if pov > 0 else 0.0) + e["vp_per_card"] + 0.5 - 1.0
            elif ph == _PH["workhouse"]:
                x += 3.0
            return x
        if name == "school_expend":
            return -_keep_value(view, v) - MONEY_W
        if name == "place":
            return _place_score(view, v, view.money)
        if name == "use":
            hp = T.handp[v]
            if "discard_to_place_any_colour" in hp:
                # Wren pays off when two placements still need a card of their colour.
                wanted = sum(1 for w, n in enumerate(view.hand) if n and T.base[w] and not T.no_expend[w]
                             and _place_score(view, w, view.money) > 0)
                return 1.0 if wanted >= 2 and raw["wren_waivers"] == 0 else -1.0
            return 0.2 if raw["hand_n"][view.me] <= 4 and view.turns_left > 3 else -1.0
        if name in ("on_stack_up", "on_stack_down"):
            down = name == "on_stack_down"
            best = None
            for i, (w, f) in enumerate(zip(view.pcv, view.pcf)):
                if E.KIND_OF[w] == k and not (f & (_F_COVERED | _F_PLACED_NOW)) \
                        and bool(f & _F_DOWN) == down:
                    c = _cover_cost(view, i)
                    best = c if best is None else min(best, c)
            return -(best if best is not None else 99.0)
        if name == "activate":
            best = None
            for i, (w, f) in enumerate(zip(view.pcv, view.pcf)):
                if E.KIND_OF[w] == k and not (f & (_F_DOWN | _F_COVERED | _F_ACTIVATED)):
                    g = act_gain(view, w, i)
                    if "reactivate_another" in T.eff[w]:
                        g -= 0.5        # Whitehall after the others
                    best = g if best is None else max(best, g)
            return best if best is not None else -1.0
        if name == "again":
            return act_gain(view, v, with_cost=False)
        if name == "keep":
            return act_gain(view, v, with_cost=True) + 0.5
        if name in ("coffee_top", "coffee_bottom"):
            return _placed_value(view, v) - MONEY_W * T.cost[v] - (LOAN_COST if T.cost[v] > view.money else 0)
        return 0.0
