"""Write the arena demo votes file (synthetic, written by us): tasks/demo/arena_votes_demo.jsonl; with
--judge-run DIR, also a synthetic biased judge's run directory over the demo's voted pairs and 4,000 unvoted
ones (for `arena --judge-run DIR`: judge-assisted ratings; not written to the repository).

Usage: python scripts/make_arena_demo.py [--judge-run DIR]   (deterministic: seed 0; see
judgebench.human.arena.synthetic)
"""

import argparse
from pathlib import Path

from judgebench.human.arena.synthetic import demo_judge_run, demo_votes
from judgebench.tasks.votes import write_votes

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="write the arena demo votes (and a synthetic judge run)")
    parser.add_argument("--judge-run", type=Path, metavar="DIR", help="also write a synthetic judge run here")
    args = parser.parse_args()
    path = Path(__file__).resolve().parent.parent / "tasks" / "demo" / "arena_votes_demo.jsonl"
    votes = demo_votes(seed=0)
    write_votes(path, votes)
    print(f"wrote {len(votes)} votes to {path}")
    if args.judge_run is not None:
        pairs = demo_judge_run(args.judge_run, votes)
        print(f"wrote a synthetic judge run over {pairs} pairs to {args.judge_run}")
