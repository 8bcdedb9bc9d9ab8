"""Generate the bundled demo data in tasks/demo/ (sciarena_eval_demo.jsonl, ideation_arena_eval_demo.jsonl).

The texts, in scripts/demo_texts.yaml, are handwritten, fictional demo content. The questions,
responses, papers, authors, proposals and "human" labels are invented for
exercising judgebench end to end; none of it is real data, and none of it is
copied from the released SciArena-Eval or Ideation-Arena-Eval sets. Only the
field layout mirrors those datasets.

The script is deterministic: the only choices it makes itself (which side of a
pair a response is shown on, and which model names are attached to a pair) come
from a fixed seed.

    .venv/bin/python scripts/make_demo_data.py
"""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "tasks" / "demo"

SUBJECTS = ("Natural Science", "Healthcare", "Humanities & Social Sciences", "Engineering")
QUESTION_TYPES = (
    "Conceptual Explanation",
    "State-of-the-Art Assessment",
    "Challenges & Limitations",
    "Methodology Inquiry",
    "Paper Finding",
    "Others",
)

# ---------------------------------------------------------------------------
# The demo texts live in scripts/demo_texts.yaml (see its header): SciArena-style
# rows as the response the (fictional) human preferred ("win") and the one they
# did not ("lose"), with `refs` mapping each in-text citation to an invented
# title; Ideation-Arena-style rows as a seed paper, its references, two proposals
# and five handwritten labels. Which side is shown as A is decided below with a
# fixed seed, balanced within each subject.
# ---------------------------------------------------------------------------

TEXTS = Path(__file__).resolve().with_name("demo_texts.yaml")

SCI: list[dict] = []


_ITEM = re.compile(r"^(?:- |\d+\. )")


def clean(text: str) -> str:
    """Undo the source indentation and line wrapping.

    Blank lines separate paragraphs; a line starting with "- " or "1. " starts a
    new list item; any other line continues the previous one.
    """
    paras = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines: list[str] = []
        for raw in block.splitlines():
            line = " ".join(raw.split())
            if not line:
                continue
            if lines and not _ITEM.match(line):
                lines[-1] += " " + line
            else:
                lines.append(line)
        if lines:
            paras.append("\n".join(lines))
    return "\n\n".join(paras)


def sci(subject: str, qtype: str, question: str, win: str, lose: str, refs: dict[str, str]) -> None:
    SCI.append(
        {
            "subject": subject,
            "question_type": qtype,
            "question": clean(question),
            "win": clean(win),
            "lose": clean(lose),
            "refs": refs,
        }
    )


IDEA: list[dict] = []
DIMENSIONS = ("overall_quality", "novelty", "feasibility", "significance", "specificity")
LABEL_CODES = {"A": "A", "B": "B", "T": "Tie", "X": "Both Bad"}


def idea(seed: str, refs: list[tuple[str, str]], a: str, b: str, labels: str) -> None:
    assert len(labels) == len(DIMENSIONS) and set(labels) <= set(LABEL_CODES), labels
    IDEA.append(
        {
            "seed_paper": seed,
            "references": "\n\n".join(f"Title: {t}\nAbstract: {clean(ab)}" for t, ab in refs),
            "a": clean(a),
            "b": clean(b),
            "labels": {d: LABEL_CODES[c] for d, c in zip(DIMENSIONS, labels)},
        }
    )


def load_texts(path: Path = TEXTS) -> None:
    """Fill SCI and IDEA from the texts file, in its order (the order decides the rows' ids and draws)."""
    texts = yaml.safe_load(path.read_text(encoding="utf-8"))
    for r in texts["sciarena"]:
        sci(r["subject"], r["question_type"], r["question"], win=r["win"], lose=r["lose"], refs=r["refs"])
    for r in texts["ideation"]:
        refs = [(ref["title"], ref["abstract"]) for ref in r["references"]]
        idea(r["seed_paper"], refs, a=r["a"], b=r["b"], labels=r["labels"])


# ---------------------------------------------------------------------------
# Assembly
# ---------------------------------------------------------------------------

# Strongest first, with a Bradley-Terry style strength per name. The (fictional)
# human votes favour stronger models more often than not, so a rating model fitted
# to the demo data recovers this order. SCI_SEED and IDEA_SEED are the first seeds
# (searched upwards from 0) for which the empirical win rates of these small
# samples follow the same order (for SCI_SEED, also with the longer and the
# more-cited response shown as A in 23 to 25 of the 48 rows).
SCI_MODELS = ("o3", "claude-3.7-sonnet", "gpt-4.1", "deepseek-r1", "qwen3-32b", "llama-4-maverick")
IDEA_SYSTEMS = ("gpt-5.1", "claude-4.5-sonnet", "gemini-3-pro", "kimi-k2", "research-agent-x", "ai-scientist-v2")
STRENGTHS = (1.2, 0.8, 0.4, 0.0, -0.5, -1.0)

SCI_KEYS = (
    "id", "question", "responseA", "responseB", "modelA", "modelB", "vote",
    "citation_a", "citation_b", "question_type", "subject",
)
IDEA_KEYS = (
    "comparison_id", "seed_paper", "references", "proposal_a", "proposal_b", "system_a", "system_b",
) + DIMENSIONS

_CITATION = re.compile(r"^[A-Z][A-Za-z'\-]+(?: et al\.| and [A-Z][A-Za-z'\-]+)? \d{4}[a-z]?$")


def in_text_citations(text: str) -> list[str]:
    """Every parenthetical citation, in order, e.g. "(Smith et al. 2023a; Chen 2021)" -> two entries."""
    found: list[str] = []
    for group in re.findall(r"\(([^()]*)\)", text):
        parts = [p.strip() for p in group.split(";")]
        if all(_CITATION.match(p) for p in parts):
            found.extend(parts)
        else:
            assert not re.search(r"\b\d{4}[a-z]?\b", group), f"unparsed citation-like text: ({group})"
    return found


def citation_list(text: str, refs: dict[str, str]) -> list[dict[str, str]]:
    seen: dict[str, None] = {}
    for c in in_text_citations(text):
        assert c in refs, f"no title for {c!r}"
        seen.setdefault(c, None)
    return [{"concise_authors": c, "title": refs[c]} for c in seen]


def pick_pair(rng: random.Random, pool: tuple[str, ...]) -> tuple[str, str]:
    """Two distinct names from the pool as (preferred, other): the preferred one is
    the name attached to the response the human chose, drawn with probability
    sigmoid(strength difference)."""
    i, j = rng.sample(range(len(pool)), 2)
    p_i = 1.0 / (1.0 + math.exp(STRENGTHS[j] - STRENGTHS[i]))
    return (pool[i], pool[j]) if rng.random() < p_i else (pool[j], pool[i])


def build_sci(rng: random.Random) -> list[dict]:
    rows: list[dict] = []
    for subject in SUBJECTS:
        group = [r for r in SCI if r["subject"] == subject]
        assert len(group) % 2 == 0, subject
        # Half the votes A, half B. Alternating along an order sorted by "did the
        # longer / more-cited response win" also keeps the longer and the more-cited
        # response roughly evenly split between the A and B positions.
        keyed = [
            (
                len(r["win"]) > len(r["lose"]),
                len(set(in_text_citations(r["win"]))) > len(set(in_text_citations(r["lose"]))),
                rng.random(),
                k,
            )
            for k, r in enumerate(group)
        ]
        first = rng.choice("AB")
        second = "B" if first == "A" else "A"
        votes = {k: (first, second)[n % 2] for n, (*_, k) in enumerate(sorted(keyed))}
        for k, r in enumerate(group):
            vote = votes[k]
            assert r["question_type"] in QUESTION_TYPES, r["question_type"]
            used = set(in_text_citations(r["win"])) | set(in_text_citations(r["lose"]))
            assert used == set(r["refs"]), f"unused or missing refs in: {r['question'][:60]}"
            win_model, lose_model = pick_pair(rng, SCI_MODELS)
            if vote == "A":
                (ra, ma), (rb, mb) = (r["win"], win_model), (r["lose"], lose_model)
            else:
                (ra, ma), (rb, mb) = (r["lose"], lose_model), (r["win"], win_model)
            rows.append(
                {
                    "question": r["question"],
                    "responseA": ra,
                    "responseB": rb,
                    "modelA": ma,
                    "modelB": mb,
                    "vote": vote,
                    "citation_a": citation_list(ra, r["refs"]),
                    "citation_b": citation_list(rb, r["refs"]),
                    "question_type": r["question_type"],
                    "subject": subject,
                }
            )
    rng.shuffle(rows)  # interleave subjects
    return [{"id": f"demo-sci-{i:03d}", **row} for i, row in enumerate(rows, 1)]


def build_idea(rng: random.Random) -> list[dict]:
    rows: list[dict] = []
    for i, r in enumerate(IDEA, 1):
        preferred, other = pick_pair(rng, IDEA_SYSTEMS)
        overall = r["labels"]["overall_quality"]
        if overall == "B" or (overall not in ("A", "B") and rng.random() < 0.5):
            sa, sb = other, preferred
        else:
            sa, sb = preferred, other
        rows.append(
            {
                "comparison_id": f"demo-idea-{i:03d}",
                "seed_paper": r["seed_paper"],
                "references": r["references"],
                "proposal_a": r["a"],
                "proposal_b": r["b"],
                "system_a": sa,
                "system_b": sb,
                **r["labels"],
            }
        )
    return rows


def write_jsonl(path: Path, rows: list[dict], keys: tuple[str, ...]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            assert tuple(row) == keys, sorted(set(row) ^ set(keys))
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


SCI_SEED = 12
IDEA_SEED = 30


def main() -> None:
    load_texts()
    sci_rows = build_sci(random.Random(SCI_SEED))
    idea_rows = build_idea(random.Random(IDEA_SEED))
    write_jsonl(OUT_DIR / "sciarena_eval_demo.jsonl", sci_rows, SCI_KEYS)
    write_jsonl(OUT_DIR / "ideation_arena_eval_demo.jsonl", idea_rows, IDEA_KEYS)
    print(f"wrote {len(sci_rows)} SciArena-style rows and {len(idea_rows)} Ideation-Arena-style rows to {OUT_DIR}")


if __name__ == "__main__":
    main()
