"""Write the arena demo votes file (synthetic, written by us): tasks/demo/arena_votes_demo.jsonl; with
--judge-run DIR, instead a synthetic biased judge's run directory over the demo's voted pairs and 4,000 unvoted
ones (for `arena --judge-run DIR`: judge-assisted ratings), without touching the checkout.

Usage: python scripts/make_arena_demo.py [--judge-run DIR] [--votes PATH]   (deterministic: seed 0; see
judgebench.human.arena.synthetic; --votes also writes the votes file to PATH, which is the default without
--judge-run)
"""

import argparse
from pathlib import Path

from judgebench.human.arena.synthetic import demo_judge_run, demo_votes
from judgebench.tasks.votes import write_votes

BUNDLED = Path(__file__).resolve().parent.parent / "tasks" / "demo" / "arena_votes_demo.jsonl"

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="write the arena demo votes (or a synthetic judge run over them)")
    parser.add_argument("--judge-run", type=Path, metavar="DIR", help="write a synthetic judge run here")
    parser.add_argument("--votes", type=Path, metavar="PATH",
                        help="write the votes file here (default without --judge-run: the checkout's demo file)")
    args = parser.parse_args()
    votes = demo_votes(seed=0)
    path = args.votes or (BUNDLED if args.judge_run is None else None)
    if path is not None:
        write_votes(path, votes)
        print(f"wrote {len(votes)} votes to {path}")
    if args.judge_run is not None:
        pairs = demo_judge_run(args.judge_run, votes)
        print(f"wrote a synthetic judge run over {pairs} pairs to {args.judge_run}")
