"""A tournament's report: results.json, PNG plots and a small HTML page (``fagin arena --report``).

Plots: the rating ladder (each bot's Elo with its 95 % interval) and, for
the ISMCTS bots that differ only in their budget, the score share against
the budget (log scale), with a Wilson interval over the bot's pairwise
results.
"""
from __future__ import annotations

import datetime
import html
import json
import re
from pathlib import Path

from fagin.search.arena import wilson

_BUDGET = re.compile(r"^ismcts(?P<at>@)?:?(?P<amount>\d+)(?P<unit>ms)?(?P<rest>(x\d+)?(:\w+)?)$")


def budget_families(bots):
    """{family label: [(budget, bot), ...]} for ISMCTS bots that differ only in their budget
    (iterations, or milliseconds for ``ismcts@MSms``), families of two or more."""
    families = {}
    for b in bots:
        m = _BUDGET.match(b)
        if not m:
            continue
        unit = "ms a move" if m["at"] else "iterations a move"
        families.setdefault((unit, m["rest"]), []).append((int(m["amount"]), b))
    return {f"ismcts{rest or ''} ({unit})": sorted(v) for (unit, rest), v in families.items() if len(v) > 1}


def _plots(result, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    written = []
    ratings = sorted(result.ratings, key=lambda r: r.elo)
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(ratings) + 1.5))
    ax.errorbar([r.elo for r in ratings], range(len(ratings)),
                xerr=[[r.elo - r.low for r in ratings], [r.high - r.elo for r in ratings]],
                fmt="o", capsize=4)
    ax.set_yticks(range(len(ratings)), [r.bot for r in ratings])
    ax.set_xlabel("Elo (first bot named = 0), 95 % bootstrap interval")
    ax.set_title(f"{result.game}, {result.players} players: rating ladder")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "ladder.png", dpi=100)
    plt.close(fig)
    written.append("ladder.png")
    families = budget_families(result.bots)
    if families:
        by_bot = {r.bot: r for r in result.ratings}
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for label, members in families.items():
            xs, ys, lo, hi = [], [], [], []
            for budget, bot in members:
                s = sum(v[0] for (a, _), v in result.pairwise.items() if a == bot)
                n = sum(v[1] for (a, _), v in result.pairwise.items() if a == bot)
                low, high = wilson(s, n)
                xs.append(budget)
                ys.append(by_bot[bot].score)
                lo.append(by_bot[bot].score - low)
                hi.append(high - by_bot[bot].score)
            ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o-", capsize=4, label=label)
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xticks(sorted({b for members in families.values() for b, _ in members}))
        ax.set_xlabel("budget")
        ax.set_ylabel("score share against the other bots")
        ax.set_ylim(0, 1)
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_title(f"{result.game}, {result.players} players: win share against budget")
        ax.legend()
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(out / "budget.png", dpi=100)
        plt.close(fig)
        written.append("budget.png")
    return written


def write_report(result, directory, command=""):
    """Writes results.json, the plots and report.html into ``directory``; returns the page's path."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(result.to_json(), indent=1), encoding="utf-8")
    images = _plots(result, out)
    esc = html.escape
    rows = "".join(
        f"<tr><td>{i + 1}</td><td>{esc(r.bot)}</td><td>{r.elo:.0f}</td><td>[{r.low:.0f}, {r.high:.0f}]</td>"
        f"<td>{r.games}</td><td>{r.score:.1%}</td></tr>"
        for i, r in enumerate(sorted(result.ratings, key=lambda r: -r.elo)))
    head = "".join(f"<th>{esc(b)}</th>" for b in result.bots)
    matrix = ""
    for a in result.bots:
        cells = ""
        for b in result.bots:
            s, n = result.pairwise.get((a, b), (0.0, 0))
            cells += f"<td>{'&ndash;' if a == b or not n else f'{s / n:.0%} <small>({n})</small>'}</td>"
        matrix += f"<tr><th>{esc(a)}</th>{cells}</tr>"
    figures = "".join(f'<figure><img src="{name}" alt="{name}"></figure>' for name in images)
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fagin arena: {esc(result.game)}</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}}
table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:right}}
th{{background:#f4f4f4}}img{{max-width:100%}}code{{background:#f4f4f4;padding:.1em .3em}}</style></head>
<body><h1>{esc(result.game)}, {result.players} players</h1>
<p>{len(result.records)} seat-rotated games in {result.seconds:.0f} s,
{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC. Command: <code>{esc(command)}</code></p>
<h2>Ratings</h2>
<p>Bradley-Terry (Elo scale) fit of every pairwise result between seats of different bots
(the higher return wins; equal returns draw), the first bot named at 0; 95&nbsp;% bootstrap
interval over games. Score: the share of its pairwise results a bot won, draws half.</p>
<table><tr><th>rank</th><th>bot</th><th>Elo</th><th>95&nbsp;% interval</th><th>games</th><th>score</th></tr>
{rows}</table>
<h2>Head to head</h2><p>The row bot's score against the column bot (pairwise results).</p>
<table><tr><th></th>{head}</tr>{matrix}</table>
<h2>Plots</h2>{figures}
<p>Every game: <a href="results.json">results.json</a>.</p>
</body></html>
"""
    path = out / "report.html"
    path.write_text(page, encoding="utf-8")
    return path
