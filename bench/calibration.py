"""How well the search's values predict who wins: a reliability table, the Brier score, a plot.

Positions come from self-play between bots of a cheap level (``--level``, the game's own
ladder). In every game, ``--positions`` decisions are drawn at random (a decision, not a
chance event), each is searched for the seat to act with ``--iterations`` ISMCTS
iterations, and the search's value of the position for that seat (the visit-weighted mean
of its root actions' values, on the scale of the game's returns: a win chance for the seed
games) is compared with how that game ended for that seat (its share of the win).  The
positions are :func:`fagin.search.calibration.sample_pairs`'s, the very ones a calibration
map is fitted on (``python -m fagin.search.calibration``), so a map is judged here on
positions of another seed: held out.  The values judged are those the analysis answer
reports: through the game's calibration map where it ships one for the player count
(``--raw``: the search's raw values).

Printed: the Brier score of the predictions beside that of a constant prediction (the
observed win rate of the seat to act over all positions), the reliability table in ten
bins of predicted value (positions, mean predicted, observed, the gap), and with
``--plot PATH`` a PNG of the same. A bin is "within tolerance" when it holds at least
``--min-bin`` positions and its gap is at most ``--tolerance`` points.

    .venv/bin/python bench/calibration.py --game london --games 200 --positions 10 \\
        --iterations 1000 --workers 2 --plot build/calibration/london.png
"""
import argparse
import math
import statistics
import sys
import time

from fagin.engines import GAMES
from fagin.search import calibration

BINS = 10


def reliability(pairs, bins=BINS):
    """Per bin of predicted value: (low, high, count, mean predicted, observed)."""
    rows = []
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        inside = [(p, o) for p, o in pairs if low <= p < high or (b == bins - 1 and p == 1.0)]
        if inside:
            rows.append((low, high, len(inside), statistics.fmean(p for p, _ in inside),
                         statistics.fmean(o for _, o in inside)))
        else:
            rows.append((low, high, 0, math.nan, math.nan))
    return rows


def table(pairs, min_bin, tolerance):
    """The reliability table's lines, and whether every full bin is within tolerance."""
    lines = [f"{'bin':<12}{'positions':>10}{'predicted':>11}{'observed':>10}{'gap (pts)':>11}"]
    within = True
    for low, high, n, p, o in reliability(pairs):
        if n:
            gap = 100 * (o - p)
            flag = "" if n < min_bin or abs(gap) <= tolerance else "  off"
            within &= flag == ""
            lines.append(f"{low:.1f}-{high:.1f}{'':<5}{n:>10}{p:>11.3f}{o:>10.3f}{gap:>+11.1f}{flag}")
        else:
            lines.append(f"{low:.1f}-{high:.1f}{'':<5}{0:>10}{'-':>11}{'-':>10}{'-':>11}")
    return lines, within


def plot(rows, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", label="perfect calibration")
    xs = [r[3] for r in rows if r[2]]
    ys = [r[4] for r in rows if r[2]]
    sizes = [max(10, 200 * r[2] / max(1, max(q[2] for q in rows))) for r in rows if r[2]]
    ax.scatter(xs, ys, s=sizes, color="#1f5fbf", zorder=3, label="bins (area: positions)")
    ax.plot(xs, ys, color="#1f5fbf")
    ax.set_xlabel("predicted win chance of the seat to act")
    ax.set_ylabel("observed share of wins")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=9)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    import pathlib
    pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    calibration.add_position_arguments(ap, games=200, seed=1)
    ap.add_argument("--min-bin", type=int, default=50)
    ap.add_argument("--tolerance", type=float, default=8.0, help="points (of 100) a full bin may be off")
    ap.add_argument("--plot", help="write the reliability plot to this PNG")
    ap.add_argument("--raw", action="store_true", help="judge the search's raw values, not the calibrated ones")
    ap.add_argument("--progress", action="store_true")
    args = ap.parse_args(argv)
    spec = GAMES[args.game]
    started = time.perf_counter()
    raw = calibration.pairs_for_arguments(ap, args)
    if not raw:
        sys.exit("no position was sampled")
    fmap = None if args.raw else calibration.calibration_map(args.game, args.players)
    pairs = [(fmap(p), o) for p, o in raw] if fmap else raw
    base = statistics.fmean(o for _, o in pairs)
    score, constant = calibration.brier(pairs), calibration.brier(pairs, lambda p: base)
    print(f"{spec.name}, {args.players} players: {len(pairs)} positions from {args.games} games of level "
          f"{args.level} self-play, {args.iterations:,} iterations a prediction "
          f"({time.perf_counter() - started:.0f} s)")
    if fmap:
        print(f"values through the game's calibration map ({len(fmap.xs)} knots); "
              f"raw: Brier {calibration.brier(raw):.4f}, log loss {calibration.log_loss(raw):.4f}, calibrated log loss "
              f"{calibration.log_loss(raw, fmap):.4f}")
    else:
        print("raw values (" + ("--raw" if args.raw else "the game ships no calibration map for this count") + ")")
    print(f"Brier score {score:.4f}; a constant {base:.3f} scores {constant:.4f} "
          f"({'better' if score < constant else 'NOT better'} than constant)")
    lines, within = table(pairs, args.min_bin, args.tolerance)
    print("\n".join(lines))
    print(f"every bin of at least {args.min_bin} positions within {args.tolerance:g} points: "
          f"{'yes' if within else 'no'}")
    if args.plot:
        kind = "calibrated" if fmap else "raw"
        plot(reliability(pairs), args.plot, f"{spec.name}, {args.players} players, {args.iterations} iterations, "
                                            f"{len(pairs)} positions, {kind}\nBrier {score:.3f} (a constant: {constant:.3f})")
        print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
