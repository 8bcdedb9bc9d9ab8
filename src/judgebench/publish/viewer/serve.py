"""`judgebench view RUN ...`: the viewer served on 127.0.0.1 (read-only, stdlib ThreadingHTTPServer).

GET /                 the page          GET /viewer.js, /viewer.css   the assets
GET /api/meta         runs, dimensions, slices, how many index chunks
GET /api/index/K      the K-th chunk of index rows (INDEX_ROWS each)
GET /api/example/N    row N's details, read from the run files by byte offset when asked
Every response carries the Content-Security-Policy and nosniff; anything else is 404, and a request whose
Host header is not 127.0.0.1 / localhost is 403 (a web page that rebinds its own name to 127.0.0.1 reads nothing).
"""

from __future__ import annotations

import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.publish.viewer.data import View, example_detail, index_row
from judgebench.publish.viewer.page import CSP, asset, dumps, page_html

INDEX_ROWS = 20_000
LOCAL_NAMES = ("127.0.0.1", "localhost", "::1")  # the Host a request may name: another name is a DNS rebinding
_TYPES = {"viewer.js": "text/javascript; charset=utf-8", "viewer.css": "text/css; charset=utf-8"}


def make_server(view: View, port: int = 0, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """A server for `view` (port 0: any free port; see server.server_address)."""
    meta = {**view.meta(), "slice_columns": view.slice_columns,
            "index_chunks": max(1, -(-len(view.rows) // INDEX_ROWS))}
    static = {"/": ("text/html; charset=utf-8", page_html("api").encode()),
              **{f"/{n}": (t, asset(n).encode()) for n, t in _TYPES.items()}}

    class Handler(BaseHTTPRequestHandler):
        server_version = "judgebench-view"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:  # quiet: a local viewer
            pass

        def _send(self, status: int, kind: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Content-Security-Policy", CSP)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, value: Any) -> None:
            self._send(200, "application/json", dumps(value).encode())

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if self.headers.get("Host", "").rsplit(":", 1)[0].strip("[]") not in LOCAL_NAMES:
                self._send(403, "text/plain; charset=utf-8", b"forbidden: this viewer answers 127.0.0.1 / localhost only")
            elif path in static:
                self._send(200, *static[path])
            elif path == "/api/meta":
                self._json(meta)
            elif m := re.fullmatch(r"/api/index/(\d{1,9})", path):
                k = int(m[1])
                self._json([index_row(r) for r in view.rows[k * INDEX_ROWS:(k + 1) * INDEX_ROWS]])
            elif (m := re.fullmatch(r"/api/example/(\d{1,12})", path)) and int(m[1]) < len(view.rows):
                try:
                    self._json(example_detail(view, int(m[1])))
                except JudgebenchError as exc:
                    self._send(500, "text/plain; charset=utf-8", str(exc).encode())
            else:
                self._send(404, "text/plain; charset=utf-8", b"not found")

    if host not in LOCAL_NAMES:
        raise JudgebenchError(f"--host {host}: the viewer serves this machine only (127.0.0.1)")
    return ThreadingHTTPServer((host, port), Handler)
