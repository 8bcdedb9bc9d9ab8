"""`judgebench view RUN [RUN ...]`: the run viewer, served on 127.0.0.1 or written as a static bundle."""

from __future__ import annotations

import argparse
import time
from typing import Any

from judgebench.cli.flags import OUTPUT_DIR, PATH, POSITIVE_FLOAT, port_number
from judgebench.core.errors import JudgebenchError


def add_parser(sub: Any) -> None:
    p = sub.add_parser("view", help="browse every judgment of one or more runs: disagreements, flips, reasoning")
    p.add_argument("runs", nargs="+", type=PATH, metavar="RUN", help="run directories (several: side by side, same task)")
    p.add_argument("--output-dir", type=OUTPUT_DIR, help="write a static, self-contained bundle here instead of serving")
    p.add_argument("--port", type=port_number, default=8765, help="port on 127.0.0.1 (default 8765; 0: any free port)")
    p.add_argument("--chunk-mb", type=POSITIVE_FLOAT, default=2.0, help="bundle: largest data file in MB (default 2)")
    p.set_defaults(handler=cmd_view)


def cmd_view(args: argparse.Namespace) -> int:
    from judgebench.publish.viewer.data import build_view

    started = time.perf_counter()
    view = build_view(args.runs)
    if args.output_dir is not None:
        from judgebench.publish.viewer.bundle import write_bundle

        chunks = write_bundle(view, args.output_dir, chunk_bytes=int(args.chunk_mb * 1_000_000))
        print(f"wrote {args.output_dir / 'index.html'}: {len(view.rows):,} examples, {chunks['example_chunks']} "
              f"example chunks, {time.perf_counter() - started:.1f} s (open it in a browser, or publish the folder)")
        return 0
    from judgebench.publish.viewer.serve import make_server

    try:
        server = make_server(view, args.port)
    except OSError as exc:  # (in use: "OSError: Address already in use", naming no flag)
        raise JudgebenchError(f"--port {args.port}: cannot listen on 127.0.0.1 ({exc.strerror})") from None
    host, port = server.server_address[:2]
    print(f"judgebench view: {len(view.rows):,} examples of {len(view.runs)} run(s), indexed in "
          f"{time.perf_counter() - started:.1f} s; open http://{host}:{port}/ (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    finally:  # (stopped by Ctrl-C or SIGTERM: cli.main's one "interrupted" line and exit 130, as every command)
        server.server_close()
    return 0
