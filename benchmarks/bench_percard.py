"""The per-card study's cost and reliability on padrao (issues 15 and 16).

Runs ``sorteio simulate --per-card``'s study (``percard_study.run_per_card``) at its stated
precision (±0.2 points per card, 95%; cap 200,000 matches; random player) and prints:

- wall and CPU seconds (this process and its workers, ``resource``), matches played, rounds,
  matches/s, with the load average before and after (the machine is shared: other sessions'
  work shows up as wall time, not as CPU time);
- ``--jobs 1,2``: the same study on 1 and on 2 worker processes, side by side in one run, and
  their wall-time ratio;
- ``--agreement``: a second seed, and the two seeds' agreement: flagged cards (Benjamini-Hochberg,
  5%) in common and Jaccard, Pearson and Spearman correlation of the per-card effects; and the
  same figures for today's 3,000-match fixed study, for comparison.

Usage: python benchmarks/bench_percard.py [--precision 0.2] [--jobs 2] [--seeds 1,2]
       [--agreement] [--json FILE]
Target (issue 16): the study at the stated precision on padrao in <= 15 s wall on 2 cores.
"""

import argparse
import json
import math
import os
import random
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from sorteio.loader import load_deck
from sorteio.sim.kernels import kernel_name
from sorteio.sim.percard import (
    DEFAULT_HALF_WIDTH_PP,
    DEFAULT_MAX_MATCHES,
    benjamini_hochberg,
    jaccard,
    pearson,
    spearman,
)
from sorteio.sim.percard_study import run_per_card
from sorteio.sim.stats import Z95

TARGET_S = 15.0


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _own_cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


def _load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def study(deck, seed: int, precision: float, jobs: int, **kwargs) -> dict:
    load_before = _load()
    cpu, own, wall = _cpu(), _own_cpu(), time.perf_counter()
    result = run_per_card(deck, seed=seed, half_width_pp=precision, jobs=jobs, **kwargs)
    wall, cpu, own = time.perf_counter() - wall, _cpu() - cpu, _own_cpu() - own
    # With workers, the parent's own CPU (planning, merging, pickling) is the serial part: two
    # idle cores need at least max(parent CPU, all CPU / jobs) of wall time.
    bound = cpu if jobs == 1 else max(own, cpu / jobs)
    row = {"seed": seed, "jobs": jobs, "precision_pp": precision, "wall_s": round(wall, 2),
           "cpu_s": round(cpu, 2), "parent_cpu_s": round(own, 2),
           "cpu_bound_wall_s": round(bound, 2), "matches": result.matches_played,
           "simulated": result.matches_simulated, "rounds": result.rounds,
           "matches_per_s_wall": round(result.matches_played / wall),
           "matches_per_cpu_s": round(result.matches_played / cpu) if cpu else None,
           "flagged": len(result.flagged), "load_before": load_before, "load_after": _load()}
    print(f"seed {seed}, jobs {jobs}, ±{precision:g} pt: {wall:6.1f} s wall, {cpu:6.1f} s CPU "
          f"({own:.1f} s in this process; CPU-bound wall {bound:.1f} s), "
          f"{result.matches_played:,} paired matches ({result.matches_simulated:,} simulated) "
          f"in {result.rounds} rounds "
          f"({row['matches_per_s_wall']:,}/s wall), {len(result.flagged)} cards flagged; "
          f"load average {load_before} -> {row['load_after']}", flush=True)
    row["effects"] = {e.card_id: e.diff_pp[0] for e in result.effects}
    row["half_widths"] = {e.card_id: e.half_width_pp for e in result.effects}
    row["flagged_cards"] = sorted(e.card_id for e in result.flagged)
    return row


def agreement(a: dict, b: dict) -> dict:
    cards = sorted(a["effects"])
    x = [a["effects"][c] for c in cards]
    y = [b["effects"][c] for c in cards]
    fa, fb = set(a["flagged_cards"]), set(b["flagged_cards"])
    return {"flagged": [len(fa), len(fb)], "in_common": len(fa & fb),
            "jaccard": round(jaccard(fa, fb), 3), "pearson": round(pearson(x, y), 3),
            "spearman": round(spearman(x, y), 3),
            "opposite_signs_among_flagged": sorted(c for c in fa | fb
                                                   if a["effects"][c] * b["effects"][c] < 0)}


def monte_carlo(a: dict, b: dict, pairs: int = 400, fdr: float = 0.05) -> dict:
    """What two seeds' agreement is expected to be at this precision: ``pairs`` simulated pairs
    of studies whose true effects are the two seeds' mean estimates, shrunk so their spread is
    the true one (the mean's variance minus its noise, se² / 2), and whose estimates add normal
    noise of each card's measured standard error (half-width / 1.96); flags by
    Benjamini-Hochberg at ``fdr``. Returns the mean and percentiles of Jaccard, Pearson,
    Spearman (the shared baseline's noise is left out: it moves every card of a seed alike)."""
    rng = random.Random(2026)
    cards = sorted(a["effects"])
    mean = [(a["effects"][c] + b["effects"][c]) / 2 for c in cards]
    se = [(a["half_widths"][c] + b["half_widths"][c]) / 2 / Z95 for c in cards]
    centre = sum(mean) / len(mean)
    spread = sum((m - centre) ** 2 for m in mean) / (len(mean) - 1)
    noise = sum(s * s for s in se) / len(se) / 2
    shrink = math.sqrt(max(spread - noise, 0.0) / spread) if spread > 0 else 0.0
    truth = [centre + (m - centre) * shrink for m in mean]
    out: dict = {"jaccard": [], "pearson": [], "spearman": []}
    for _ in range(pairs):
        runs = []
        for _seed in (1, 2):
            est = [t + rng.gauss(0.0, s) for t, s in zip(truth, se)]
            ps = [math.erfc(abs(e) / s / math.sqrt(2)) if s > 0 else 1.0
                  for e, s in zip(est, se)]
            flags = {c for c, q in zip(cards, benjamini_hochberg(ps)) if q <= fdr}
            runs.append((est, flags))
        out["jaccard"].append(jaccard(runs[0][1], runs[1][1]))
        out["pearson"].append(pearson(runs[0][0], runs[1][0]))
        out["spearman"].append(spearman(runs[0][0], runs[1][0]))
    summary = {}
    for name, xs in out.items():
        xs.sort()
        summary[name] = {"mean": round(sum(xs) / len(xs), 3),
                         "p01": round(xs[len(xs) // 100], 3),
                         "p10": round(xs[len(xs) // 10], 3)}
    return summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--precision", type=float, default=DEFAULT_HALF_WIDTH_PP)
    ap.add_argument("--max-matches", type=int, default=DEFAULT_MAX_MATCHES)
    ap.add_argument("--jobs", default="2", help="comma-separated worker counts, e.g. 1,2")
    ap.add_argument("--seeds", default="1,2")
    ap.add_argument("--agreement", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    deck = load_deck("padrao")
    print(f"per-card study, padrao, kernel {kernel_name()}, {os.cpu_count()} CPUs (shared "
          f"machine: compare figures of one run, read wall time beside the load average)")
    jobs = [int(j) for j in args.jobs.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = [study(deck, seeds[0], args.precision, j, max_matches=args.max_matches)
            for j in jobs]
    if len(rows) > 1:
        wall_ratio = rows[0]["wall_s"] / rows[-1]["wall_s"]
        bound_ratio = rows[0]["cpu_bound_wall_s"] / rows[-1]["cpu_bound_wall_s"]
        print(f"jobs {jobs[0]} / jobs {jobs[-1]}: wall {wall_ratio:.2f}x, CPU-bound "
              f"{bound_ratio:.2f}x (target >= 1.8x)")
    best = rows[-1]
    print(f"target <= {TARGET_S:g} s wall on 2 cores: {best['wall_s']:.1f} s "
          f"({'met' if best['wall_s'] <= TARGET_S else 'not met'} in this run); its CPU time "
          f"over 2 cores, the wall time two idle cores would need at best: "
          f"{best['cpu_s'] / 2:.1f} s")
    out = {"studies": rows}
    if args.agreement:
        other = study(deck, seeds[1], args.precision, jobs[-1], max_matches=args.max_matches)
        out["agreement"] = agreement(best, other)
        print(f"seeds {seeds[0]} and {seeds[1]} at ±{args.precision:g}: {out['agreement']}")
        out["expected"] = monte_carlo(best, other)
        print(f"expected from a Monte Carlo of the measured effects: {out['expected']}")
        fixed = [study(deck, s, args.precision, jobs[-1], first=3000, max_matches=3000)
                 for s in seeds[:2]]
        out["agreement_3000"] = agreement(*fixed)
        print(f"the same at a fixed 3,000 matches per card: {out['agreement_3000']}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
