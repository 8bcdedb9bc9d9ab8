"""The `judgebench annotate` and `judgebench freeze` commands (annotate/, freeze.py), and the list of the
human-side parsers cli.build_parser registers (pairs, annotate, freeze)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judgebench.cli.flags import (
    NON_NEGATIVE_FLOAT,
    NON_NEGATIVE_INT,
    OUTPUT_DIR,
    OUTPUT_FILE,
    PATH,
    POSITIVE_INT,
    fraction,
    port_number,
    warn,
)
from judgebench.core.errors import JudgebenchError
from judgebench.core.text import term_text


def human_side_parsers() -> list[Callable[[Any], None]]:
    """The parsers of the commands that build a benchmark from votes: pairs, annotate, freeze."""
    from judgebench.cli import pairs as pairs_cli

    return [pairs_cli.add_parser, add_parser, add_freeze_parser]


# the flags of the voting page itself, with their defaults: refused when the command only adds an annotator or
# exports (taken and ignored, they would read as applied)
SERVING: dict[str, Any] = {"target_votes": 3, "repeat_share": 0.0, "repeat_delay_hours": 336.0, "gold_share": 0.0,
                           "guidelines": None}


def add_parser(sub: Any) -> None:
    p = sub.add_parser("annotate", help="serve a blind pairwise voting page; add annotators; export votes")
    p.add_argument("source", nargs="?", help="a pairs.jsonl from `judgebench pairs`, or a task name / task YAML")
    p.add_argument("--db", default="votes.sqlite", help="SQLite file (default votes.sqlite) or postgresql:// URL")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (and in invite links); 0.0.0.0: every "
                   "address of this machine (then give --public-url)")
    p.add_argument("--port", type=port_number, default=8080, help="0: any free port (printed)")
    p.add_argument("--target-votes", type=POSITIVE_INT, default=SERVING["target_votes"], help="round-1 votes wanted per pair")
    p.add_argument("--repeat-share", type=fraction, default=SERVING["repeat_share"],
                   help="share of voted pairs shown again (self-consistency)")
    p.add_argument("--repeat-delay-hours", type=NON_NEGATIVE_FLOAT, default=SERVING["repeat_delay_hours"],
                   help="delay before a repeat (default two weeks)")
    p.add_argument("--gold-share", type=fraction, default=SERVING["gold_share"],
                   help="share of showings that are gold pairs (pairs-file rows with 'gold')")
    p.add_argument("--guidelines", type=PATH, metavar="MARKDOWN", help="guidelines shown in a panel (open on a first visit)")
    p.add_argument("--dimensions", help="comma-separated dimensions to vote on separately (pairs files)")
    p.add_argument("--slices", help="comma-separated slice columns of a pairs file (default: its other text columns)")
    p.add_argument("--demo", action="store_true", help="a task's bundled demo split")
    p.add_argument("--dataset-path", help="a task's data from this file or Hub id")
    p.add_argument("--include-path", type=PATH, action="append", default=[], help="folder of extra task YAMLs")
    p.add_argument("--add-annotator", metavar="NAME", help="create an annotator and print its invite link")
    p.add_argument("--expertise", default="", help="with --add-annotator: comma-separated slice values routed to them")
    p.add_argument("--admin", action="store_true", help="with --add-annotator: may open /admin")
    p.add_argument("--new-link", metavar="NAME", help="a new invite link for an existing annotator (a lost or leaked "
                   "one): the old link and its sessions stop working; the votes stay theirs")
    p.add_argument("--public-url", metavar="URL", help="with --add-annotator or --new-link: the address annotators "
                   "reach the page at, for their links (e.g. https://vote.example.org); default http://HOST:PORT")
    p.add_argument("--export", type=OUTPUT_FILE, metavar="VOTES_JSONL", help="write the votes (votes.py layout) and exit")
    p.set_defaults(handler=cmd_annotate)


def cmd_annotate(args: argparse.Namespace) -> int:
    from judgebench.human.annotate.store import Store

    if args.export:  # the files beside the votes too (cli.main's guard checked --export itself)
        from judgebench.core.files import refuse_output_over_inputs
        from judgebench.human.annotate.export import exported_files

        inputs = [Path(path) for path in (args.source, args.db, args.guidelines) if path]
        refuse_output_over_inputs([("--export", path) for path in exported_files(args.export)], inputs)
    if (args.admin or args.expertise.strip()) and args.add_annotator is None:  # (taken, and ignored: an attack)
        raise JudgebenchError("--admin and --expertise go with --add-annotator (a new link keeps the annotator's own)")
    if args.public_url is not None and args.add_annotator is None and args.new_link is None:
        raise JudgebenchError("--public-url goes with --add-annotator or --new-link (the links they print)")
    adding = args.add_annotator is not None  # (an empty name is a name given: refused, never a server started)
    if adding or args.new_link is not None or args.export:
        _no_serving_flags(args)
    name = (args.add_annotator or "").strip()  # checked before the database is made or pairs are loaded
    if adding and (not name or len(name) > 80 or not name.isprintable()):  # (a line break had split flagged.txt)
        raise JudgebenchError("--add-annotator: expected a name of 1-80 printable characters")
    links = _link_base(args) if adding or args.new_link is not None else ""
    store = Store(args.db, must_exist=not args.source)
    if args.source:
        _load_source(store, args)
    if args.export and not store.pairs():  # (before an annotator is added: an empty database exported 0 votes and
        # an empty flagged list without a word)
        raise JudgebenchError(f"--db {store.shown}: holds no pairs, so no votes; is it the database served?")
    if adding:
        tags = [t.strip() for t in args.expertise.split(",") if t.strip()]
        _check_expertise(tags, store)
        token = store.add_annotator(name, tags, admin=args.admin)
        print(f"annotator {name} added{' (admin)' if args.admin else ''}; invite link (shown once):")
        print(f"{links}/t/{token}")
    if args.new_link is not None:
        token = store.new_token(args.new_link)
        print(f"annotator {term_text(args.new_link)}: new invite link (shown once; the old one no longer works):")
        print(f"{links}/t/{token}")
    if args.export:
        from judgebench.human.annotate.export import export_votes

        done = export_votes(store, args.export)
        agreement = "" if done.agreement is None else f"; self-consistency {done.agreement:.1%}"
        print(f"wrote {done.votes} votes to {args.export} and {done.repeats} repeats to {done.repeats_path}{agreement}")
        gold = f"{done.gold} votes on gold pairs beside them; " if done.gold else ""
        print(f"{gold}annotators flagged by the quality thresholds: {', '.join(done.flagged) or 'none'} ({done.flagged_path})")
    if adding or args.new_link is not None or args.export:
        return 0
    return _serve(store, args)


_HOST_NAME = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*")


def _link_base(args: argparse.Namespace) -> str:
    """Where invite links point: --public-url, else http://HOST:PORT when annotators can open that (a link to port
    0, or to 0.0.0.0, the address that means every address of this machine, reaches no page)."""
    if args.public_url is not None:
        return _public_url(args.public_url)
    if args.port == 0:
        raise JudgebenchError("--port 0: a free port is picked when the page is served, so no link can name it; give the "
                              "port you serve on (--port N) or --public-url")
    host = _link_host(args.host.strip())
    if host is None:
        raise JudgebenchError(f"--host {term_text(args.host)}: no address a browser can open (every address of this "
                              "machine, or no host name); give --public-url with the one annotators reach (e.g. "
                              "http://vote.example.org:8080)")
    return f"http://{host}:{args.port}"


def _public_url(given: str) -> str:
    """--public-url checked as a link's start: http(s), a host a browser opens, a port other than 0, a path; no
    userinfo, query, fragment, space or control character (urlsplit drops tabs and line breaks unseen, and an
    empty `?` or `#` put the token in the query)."""
    from urllib.parse import urlsplit

    url = given.rstrip("/")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        parts, port = None, None
    plain = all(c.isprintable() and not c.isspace() for c in given) and not any(c in url for c in "?#")
    if (not plain or parts is None or parts.scheme.lower() not in ("http", "https") or port == 0 or not parts.hostname
            or "@" in parts.netloc or _link_host(parts.hostname) is None):
        raise JudgebenchError(f"--public-url {term_text(given)}: expected http(s)://HOST[:PORT][/PATH] with no space, "
                              "query or fragment: the address annotators open the page at")
    return url


def _link_host(host: str) -> str | None:
    """The host as a link writes it (an IPv6 address in brackets), or None when it names no address a browser opens:
    no host name or IP address, an unspecified address (`0.0.0.0`, `::`, `0`, `::ffff:0.0.0.0`), a scoped one."""
    import ipaddress

    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        name = bare[:-1] if bare.endswith(".") else bare  # (a fully qualified name's dot)
        try:
            ascii_name = name.encode("idna").decode("ascii")  # (an international name: bücher.example)
        except UnicodeError:
            return None
        numeric = name.replace(".", "").isdigit()  # (`0`, `00.0.0.0`: read by browsers as numbers, 0.0.0.0 among them)
        return bare if _HOST_NAME.fullmatch(ascii_name) and not numeric else None
    mapped = getattr(address, "ipv4_mapped", None)
    if address.is_unspecified or (mapped is not None and mapped.is_unspecified) or getattr(address, "scope_id", None):
        return None
    return f"[{address.compressed}]" if address.version == 6 else str(address)


def _check_expertise(tags: list[str], store: Any) -> None:
    """Refuse an expertise tag that routes no stored pair (a typo, `phyiscs`, left its annotator with nothing to vote
    on); with no pairs stored yet there is nothing to check against."""
    from judgebench.human.annotate.assign import slice_values

    pairs = store.pairs()
    values = slice_values(pairs)
    unknown = [tag for tag in tags if tag.casefold() not in values]
    if pairs and unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0].casefold(), sorted(values), n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        shown = ", ".join(sorted(values)[:12]) + (", ..." if len(values) > 12 else "")
        raise JudgebenchError(f"--expertise {term_text(unknown[0])}: no stored pair has it as a slice value, so no pair "
                              f"would reach this annotator; {hint}slice values: {shown or 'none'}")


def _no_serving_flags(args: argparse.Namespace) -> None:
    """Refuse the voting page's own flags on a command that does not serve it (--add-annotator, --export)."""
    given = [name for name, default in SERVING.items() if getattr(args, name) != default]
    if given:
        flag = "--" + given[0].replace("_", "-")
        doing = "--export" if args.export else "--add-annotator" if args.add_annotator is not None else "--new-link"
        raise JudgebenchError(f"{flag}: a setting of the voting page, which {doing} does not serve; "
                              f"leave it out here and give it when serving")


def _load_source(store: Any, args: argparse.Namespace) -> None:
    from judgebench.human.annotate.source import pairs_from_file, pairs_from_task

    if args.source.endswith(".jsonl"):
        slices = [s.strip() for s in args.slices.split(",") if s.strip()] if args.slices is not None else None
        pairs = pairs_from_file(Path(args.source), slices)
        dimensions = [d.strip() for d in (args.dimensions or "").split(",") if d.strip()]
    else:
        pairs, dimensions = pairs_from_task(args.source, args.include_path, demo=args.demo, dataset_path=args.dataset_path)
    stored = json.loads(store.setting("dimensions") or "null")
    if stored is not None and stored != dimensions:
        raise JudgebenchError(f"--db {store.shown}: holds pairs voted on dimensions {stored}, not {dimensions}; use another --db")
    store.put_setting("dimensions", json.dumps(dimensions))
    try:
        added = store.add_pairs(pairs)
    except JudgebenchError as exc:  # (a pair stored with other content: nothing of the file is stored)
        raise JudgebenchError(f"{args.source}: {exc}") from None
    print(f"{added} new pairs stored in {store.shown} ({len(pairs)} in {args.source})")


def _serve(store: Any, args: argparse.Namespace) -> int:
    from judgebench.human.annotate.assign import Rules, is_gold
    from judgebench.human.annotate.server import make_server

    pairs = store.pairs()
    if not pairs:
        raise JudgebenchError(f"--db {store.shown}: no pairs yet; give a pairs file or task to load")
    if args.gold_share and not any(is_gold(pair) for pair in pairs):  # taken, shown on the admin page, doing nothing
        raise JudgebenchError(f"--gold-share {args.gold_share:g}: {store.shown} holds no gold pairs (pairs-file rows with "
                              "'gold'); load some or leave the flag out")
    if not store.annotators():
        print("no annotators yet: add one with `judgebench annotate --db ... --add-annotator NAME`")
    rules = Rules(target=args.target_votes, repeat_share=args.repeat_share, repeat_delay_s=args.repeat_delay_hours * 3600,
                  gold_share=args.gold_share)
    guidelines = None
    if args.guidelines is not None:
        from judgebench.core.files import regular_bytes

        try:
            guidelines = regular_bytes(args.guidelines).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise JudgebenchError(f"--guidelines {args.guidelines}: cannot read it ({exc})") from None
    try:
        server = make_server(store, rules, args.host, args.port, guidelines=guidelines)
    except OSError as exc:
        raise JudgebenchError(f"--port {args.port}: cannot listen on {args.host} ({exc.strerror})") from None
    print(f"serving the voting page on http://{args.host}:{server.server_address[1]}/ (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()  # uvicorn: Ctrl-C or SIGTERM stops it gracefully (its own signal handlers)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    print("judgebench annotate: stopped", file=sys.stderr)
    return 130  # the one way a serving page ends: Ctrl-C or SIGTERM, as `view` (README's exit codes)


def add_freeze_parser(sub: Any) -> None:
    p = sub.add_parser("freeze", help="draw a balanced evaluation split from votes; write it with a dataset card and a task YAML")
    p.add_argument("votes", type=PATH, help="votes file (annotate --export, votes.py layout)")
    p.add_argument("--pairs", type=PATH, required=True, help="the pairs file the votes were cast on (pairs.jsonl)")
    p.add_argument("--split-size", type=POSITIVE_INT, required=True, help="pairs in the split")
    p.add_argument("--seed", type=NON_NEGATIVE_INT, default=0, help="seed of the stratified draw")
    p.add_argument("--ties", choices=["drop", "keep"], default="drop", help="drop: decisive labels only (SciArena-Eval); keep: ties and Both Bad as strata of their own")
    p.add_argument("--min-votes", type=POSITIVE_INT, default=1, help="votes a pair needs to be eligible")
    p.add_argument("--exclude-annotators", metavar="FILE_OR_NAMES", help="flagged annotators: a file, one per line, or a,b,c")
    p.add_argument("--name", default="my_judge_eval", help="task name (also the file names)")
    p.add_argument("--output", type=OUTPUT_DIR, required=True, help="folder for NAME.jsonl, NAME.yaml and README.md")
    p.set_defaults(handler=cmd_freeze, writes=lambda a, name: name in (f"{a.name}.jsonl", f"{a.name}.yaml", "README.md"))


def cmd_freeze(args: argparse.Namespace) -> int:
    import hashlib

    import yaml

    from judgebench.core.files import regular_bytes, write_atomic
    from judgebench.human.annotate.source import pairs_from_file
    from judgebench.human.freeze import (
        CARD_MARK,
        dataset_card,
        freeze_split,
        read_flagged,
        task_yaml,
    )
    from judgebench.tasks.votes import read_votes

    from judgebench.tasks.registry import TASK_NAME_RE

    if not TASK_NAME_RE.fullmatch(args.name):  # the rule `leaderboard` and `submit` hold a task name to
        raise JudgebenchError(f"--name {args.name[:80]!r}: ASCII letters, digits, '_' and '-' only (not first), "
                              "at most 100 characters")
    from judgebench.tasks.registry import task_files

    if args.name in task_files():  # its runs would be told apart from the bundled task's by their data alone
        raise JudgebenchError(f"--name {args.name}: a bundled task has that name; choose another")
    votes = read_votes(args.votes)
    pairs = {p["id"]: p for p in pairs_from_file(args.pairs)}
    flagged = read_flagged(args.exclude_annotators)
    if unknown := sorted(flagged - {v.annotator for v in votes}):
        print(f"judgebench: warning: --exclude-annotators names annotators with no vote: {', '.join(unknown)}",
              file=sys.stderr)
    frozen = freeze_split(votes, pairs, size=args.split_size, seed=args.seed, ties=args.ties, flagged=flagged, min_votes=args.min_votes)
    slice_names = sorted({k for r in frozen.rows for k in r["slices"]})
    if taken := sorted(set(slice_names) & {k for r in frozen.rows for k in r if k != "slices"}):  # (written last, a
        # slice column had overwritten the split's own label, votes or vote count)
        raise JudgebenchError(f"pairs file {args.pairs}: column {taken[0]!r} would be a slice, but the frozen split "
                              "writes that field itself (a label, the votes or their count); rename or drop the column")
    rows = [{**{k: v for k, v in r.items() if k != "slices"}, **{s: r["slices"].get(s) for s in slice_names}} for r in frozen.rows]
    card = args.output / "README.md"  # (`freeze --output .` replaced the project's own README.md without a word)
    if card.is_file() and not card.is_symlink() and CARD_MARK.encode() not in regular_bytes(card):
        raise JudgebenchError(f"--output {args.output}: {card} is not a card `freeze` wrote and would be replaced by "
                              "the split's; choose another folder")
    args.output.mkdir(parents=True, exist_ok=True)
    data_file = args.output / f"{args.name}.jsonl"
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if data_file.is_file() and not data_file.is_symlink() and regular_bytes(data_file) != text.encode("utf-8"):
        warn(f"--output {args.output}: {data_file.name} held another split, now replaced (runs on the earlier one "  # (a
             "judged other pairs)")  # walkthrough: a new --seed redrew the split without a word)
    write_atomic(data_file, text)
    spec = task_yaml(args.name, data_file, frozen, args.ties, slice_names)
    write_atomic(args.output / f"{args.name}.yaml", yaml.safe_dump(spec, sort_keys=False, allow_unicode=True))
    votes_sha = hashlib.sha256(regular_bytes(args.votes)).hexdigest()
    write_atomic(args.output / "README.md", dataset_card(args.name, frozen, args, votes_sha, flagged))
    if frozen.repeated_votes:
        print(f"judgebench: warning: {frozen.repeated_votes} repeated votes of one annotator on one pair were counted "
              "once (the first)", file=sys.stderr)
    print(f"froze {len(rows)} of {frozen.eligible} eligible pairs ({frozen.excluded_votes} votes of excluded annotators dropped)")
    print(f"run a judge on it: judgebench run --tasks {args.output / (args.name + '.yaml')} --judge builtin/longer --output-path runs/{args.name}/")
    return 0
