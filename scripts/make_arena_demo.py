"""Write the arena demo votes file (synthetic, written by us): tasks/demo/arena_votes_demo.jsonl.

Usage: python scripts/make_arena_demo.py   (deterministic: seed 0; see judgebench.human.arena.synthetic)
"""

from pathlib import Path

from judgebench.human.arena.synthetic import demo_votes
from judgebench.tasks.votes import write_votes

if __name__ == "__main__":
    path = Path(__file__).resolve().parent.parent / "tasks" / "demo" / "arena_votes_demo.jsonl"
    votes = demo_votes(seed=0)
    write_votes(path, votes)
    print(f"wrote {len(votes)} votes to {path}")
