"""Gangs of Kyoto's events (``GangsOfKyotoEvent``), as each seat sees them: the deal drawn
face down (seen by nobody, GK-3), each card turned up (GK-4), given, kept or refused, the
cards a draw symbol brings (seen by all, GK-17), and each round's end as the engine
recorded it (``round_ended``: who busted, GK-12) with the bells each seat banked as the
observer can count them."""
from fagin.engines.game import event, result_event, seat_name, verb
from fagin.engines.gangs_of_kyoto import engine


_SPECIAL = {"discard": "a Discard card", "stay_late": "a Stay Late card", "refuse": "a Refuse card"}


def _name(card):
    """A card as a person says it: "a 4 with 2 bells", "a 2 with a draw symbol", "a Bell card
    (1 bell)", "a Refuse card" (GK-2)."""
    kind, bells = card["kind"], card.get("bells") or 0
    bell_text = f"{bells} bell{'s' if bells != 1 else ''}"
    if kind == "bell":
        return f"a Bell card ({bell_text})"
    if kind != "exploration":
        return _SPECIAL[kind]
    extras = ([bell_text] if bells else []) + (["a draw symbol"] if card.get("draw") else [])
    value = card.get("value") or 0
    return f"a {value}" + (" with " + " and ".join(extras) if extras else "")


def events(move, seat):
    before, after = move.view_before(seat), move.view_after(seat)
    out = []
    active = before["active_player"]
    if move.chance:
        if before["phase"] == "draw_deal":
            out.append(event(f"{seat_name(active, seat)} {verb(active, seat, 'draw', 'draws')} a card "
                             "face down for the deal", "deal_draw", to=active))
        else:
            card, to = move.typed["card"], before["receiver"]
            out.append(event(f"the draw symbol brings {_name(card)} to {seat_name(to, seat)}",
                             "drawn", card=card, to=to))
    else:
        a, typed = move.actor, move.typed
        if typed["kind"] == "give":
            card, to = before["revealed"], typed["seat"]
            label = (f"{seat_name(a, seat)} {verb(a, seat, 'give', 'gives')} {_name(card)} to "
                     + ("yourself" if to == a == seat else "itself" if to == a else seat_name(to, seat)))
        else:
            card, to = before["arriving"], a
            label = (f"{seat_name(a, seat)} {verb(a, seat, 'keep', 'keeps')} {_name(card)}"
                     if typed["kind"] == "accept" else
                     f"{seat_name(a, seat)} {verb(a, seat, 'refuse', 'refuses')} {_name(card)}, by "
                     f"{verb(a, seat, 'your', 'its')} Refuse card")
        out.append(event(label, "move", seat=a, action=typed, card=card, to=to))
    ended = engine.round_ended(move.after.to_bytes())
    if ended is not None:
        buster = ended["buster"]
        bells = [s["bells"] for s in after["seats"]]
        banked = [a["bells"] - b["bells"] for a, b in zip(after["seats"], before["seats"])]
        text = (f"round {before['rounds'] + 1} is over: "
                + (f"{seat_name(buster, seat)} busted and discarded {verb(buster, seat, 'your', 'its')} row; "
                   if buster is not None else "nobody busted; ")
                + "bells banked " + ", ".join(f"{seat_name(p, seat)} +{n} ({bells[p]} in all)"
                                              for p, n in enumerate(banked)))
        out.append(event(text, "round_end", summary=True, round=before["rounds"] + 1, buster=buster,
                         banked=banked, bells=bells))
    revealed = after["revealed"]
    if revealed is not None and (before["revealed"] is None or not move.chance and move.typed["kind"] == "give"):
        who = after["active_player"]
        out.append(event(f"{seat_name(who, seat)} {verb(who, seat, 'turn', 'turns')} up {_name(revealed)}",
                         "turn_up", card=revealed, to=who))
    if move.after.is_terminal():
        out.append(result_event(move.after, seat))
    return out
