"""The `judgebench annotate` command: serve the voting page, add annotators, export votes (annotate/)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .errors import JudgebenchError
from .flags import NON_NEGATIVE_FLOAT, PATH, POSITIVE_INT, fraction


def add_parser(sub: Any) -> None:
    p = sub.add_parser("annotate", help="serve a blind pairwise voting page; add annotators; export votes")
    p.add_argument("source", nargs="?", help="a pairs.jsonl from `judgebench pairs`, or a task name / task YAML")
    p.add_argument("--db", default="votes.sqlite", help="SQLite file (default votes.sqlite) or postgresql:// URL")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=port_number, default=8080, help="0: any free port (printed)")
    p.add_argument("--target-votes", type=POSITIVE_INT, default=3, help="round-1 votes wanted per pair")
    p.add_argument("--repeat-share", type=fraction, default=0.0, help="share of voted pairs shown again (self-consistency)")
    p.add_argument("--repeat-delay-hours", type=NON_NEGATIVE_FLOAT, default=336.0, help="delay before a repeat (default two weeks)")
    p.add_argument("--dimensions", help="comma-separated dimensions to vote on separately (pairs files)")
    p.add_argument("--slices", help="comma-separated slice columns of a pairs file (default: its other text columns)")
    p.add_argument("--demo", action="store_true", help="a task's bundled demo split")
    p.add_argument("--dataset-path", help="a task's data from this file or Hub id")
    p.add_argument("--include-path", type=PATH, action="append", default=[], help="folder of extra task YAMLs")
    p.add_argument("--add-annotator", metavar="NAME", help="create an annotator and print its invite link")
    p.add_argument("--expertise", default="", help="with --add-annotator: comma-separated slice values routed to them")
    p.add_argument("--admin", action="store_true", help="with --add-annotator: may open /admin")
    p.add_argument("--export", type=PATH, metavar="VOTES_JSONL", help="write the votes (votes.py layout) and exit")
    p.set_defaults(handler=cmd_annotate)


def port_number(text: str) -> int:
    """A TCP port, 0-65535 (argparse type: a bad value is one usage line)."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"expected a port number 0-65535, got {text!r}")
    return int(text)


def cmd_annotate(args: argparse.Namespace) -> int:
    from .annotate.store import Store

    store = Store(args.db)
    if args.source:
        _load_source(store, args)
    if args.add_annotator:
        name = args.add_annotator.strip()
        if not name or len(name) > 80:
            raise JudgebenchError("--add-annotator: expected a name of 1-80 characters")
        tags = [t.strip() for t in args.expertise.split(",") if t.strip()]
        token = store.add_annotator(name, tags, admin=args.admin)
        print(f"annotator {name} added{' (admin)' if args.admin else ''}; invite link (shown once):")
        print(f"http://{args.host}:{args.port}/t/{token}")
    if args.export:
        from .annotate.export import export_votes

        done = export_votes(store, args.export)
        agreement = "" if done.agreement is None else f"; self-consistency {done.agreement:.1%}"
        print(f"wrote {done.votes} votes to {args.export} and {done.repeats} repeats to {done.repeats_path}{agreement}")
    if args.add_annotator or args.export:
        return 0
    return _serve(store, args)


def _load_source(store: Any, args: argparse.Namespace) -> None:
    from .annotate.source import pairs_from_file, pairs_from_task

    if args.source.endswith(".jsonl"):
        slices = [s.strip() for s in args.slices.split(",") if s.strip()] if args.slices is not None else None
        pairs = pairs_from_file(Path(args.source), slices)
        dimensions = [d.strip() for d in (args.dimensions or "").split(",") if d.strip()]
    else:
        pairs, dimensions = pairs_from_task(args.source, args.include_path, demo=args.demo, dataset_path=args.dataset_path)
    stored = json.loads(store.setting("dimensions") or "null")
    if stored is not None and stored != dimensions:
        raise JudgebenchError(f"--db {store.shown}: holds votes on dimensions {stored}, not {dimensions}; use another --db")
    store.put_setting("dimensions", json.dumps(dimensions))
    added = store.add_pairs(pairs)
    print(f"{added} new pairs stored in {store.shown} ({len(pairs)} in {args.source})")


def _serve(store: Any, args: argparse.Namespace) -> int:
    from .annotate.assign import Rules
    from .annotate.server import make_server

    if not store.pairs():
        raise JudgebenchError(f"--db {store.shown}: no pairs yet; give a pairs file or task to load")
    if not store.annotators():
        print("no annotators yet: add one with `judgebench annotate --db ... --add-annotator NAME`")
    rules = Rules(target=args.target_votes, repeat_share=args.repeat_share, repeat_delay_s=args.repeat_delay_hours * 3600)
    try:
        server = make_server(store, rules, args.host, args.port)
    except OSError as exc:
        raise JudgebenchError(f"--port {args.port}: cannot listen on {args.host} ({exc.strerror})") from None
    print(f"serving the voting page on http://{args.host}:{server.server_address[1]}/ (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
