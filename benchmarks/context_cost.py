"""Context cost: input tokens per ticket when failures are worded raw versus as the contract.

Context tokens are the input tokens of every request of an episode summed: the transcript, errors
included, re-sent each turn. Runs every ticket with faults on, with the loop breaker on and off,
and prints per-ticket means, the totals, tokens per correct answer, and the error texts' own size.
Target: contract <= 0.5x raw.
"""
from __future__ import annotations

import argparse

from atlas_kit.atlas import TICKETS
from atlas_kit.atlas.styles import catalogue
from atlas_kit.experiments.sweep import run_experiment
from atlas_kit.experiments.metrics import groups, per_ticket, success
from atlas_kit.experiments.results import source_label
from atlas_kit.types.tokens import estimate_tokens

STYLES = ("raw", "generic", "contract")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=5, help="trials per ticket and condition (default 5)")
    args = parser.parse_args()
    records = run_experiment(name="context", styles=STYLES, faults=(True,), break_loops=(True, False),
                             tickets=list(TICKETS), trials=args.trials, out=None, progress=False)
    print(f"Context tokens per episode, faults on, {args.trials} trials per ticket. Data: {source_label(records)}")
    for breaker, arm in groups(records, "break_loops").items():
        by = groups(arm, "style")
        use = {s: per_ticket(by[s]) for s in STYLES}
        print(f"\nLoop breaker {'on' if breaker else 'off'}: mean input tokens per episode")
        print("  ticket      raw  generic  contract  contract/raw")
        for t in TICKETS:
            raw, gen, con = (use[s][t].input_tokens for s in STYLES)
            print(f"  {t}   {raw:8.0f} {gen:8.0f} {con:9.0f}  {con / raw:10.2f}")
        total = {s: sum(r["input_tokens"] for r in by[s]) for s in STYLES}
        right = {s: success(by[s]).successes for s in STYLES}
        ratio = total["contract"] / total["raw"]
        print(f"  all tickets: contract/raw = {ratio:.2f} (target <= 0.5: {'met' if ratio <= 0.5 else 'NOT met'}); "
              f"generic/raw = {total['generic'] / total['raw']:.2f}; contract/generic = "
              f"{total['contract'] / total['generic']:.2f}")
        per_right = {s: total[s] / right[s] if right[s] else float("inf") for s in STYLES}
        print("  tokens per correct answer: " + ", ".join(f"{s} {per_right[s]:,.0f} ({right[s]}/{len(by[s])} correct)"
                                                      for s in STYLES))
    rows = catalogue()
    size = {s: sum(estimate_tokens(getattr(r, s)) for r in rows) / len(rows) for s in STYLES}
    print(f"\nThe error text itself (Atlas catalogue, {len(rows)} failures, ~4 characters per token): "
          + ", ".join(f"{s} {size[s]:.0f}" for s in STYLES) + " tokens per error on average")
    print(f"Reproduce: python benchmarks/context_cost.py --trials {args.trials}")


if __name__ == "__main__":
    main()
