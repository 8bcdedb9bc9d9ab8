"""The voting web server: stdlib http.server (one thread per request) over a Store.

    server = make_server(store, rules, host="127.0.0.1", port=8080)
    server.serve_forever()

Routes: GET /t/TOKEN (an invite link: sets an HttpOnly SameSite=Strict cookie, then /), GET / (the
next pair), POST /vote, POST /skip, GET /admin (admin tokens only), GET /static/vote.js|css.
Every page and every vote needs a valid token (cookie, or `Authorization: Bearer TOKEN` for
scripts); a vote is acknowledged (303 to the next pair, or JSON with `Accept: application/json`)
only after its transaction committed. The side shown and the round are decided by the server,
never taken from the form.
"""

from __future__ import annotations

import json
import re
import sys
import uuid
from datetime import datetime, timezone
from http import HTTPStatus
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

from judgebench.core.records import LABELS
from judgebench.human.annotate.assign import Rules, next_showing, open_for, shown_order
from judgebench.human.annotate.page import (
    SCRIPT,
    STYLE,
    admin_page,
    message_page,
    vote_page,
)
from judgebench.human.annotate.store import Annotator, Store, now_iso

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; form-action 'self'; img-src 'none'; "
       "base-uri 'none'; frame-ancestors 'none'")
COOKIE = "jb_token"
MAX_BODY = 64 * 1024
SIDE_TO_LABEL = {"AB": {"LEFT": "A", "RIGHT": "B"}, "BA": {"LEFT": "B", "RIGHT": "A"}}
VOTE_ID = re.compile(r"[A-Za-z0-9-]{8,64}")


class VoteError(Exception):
    """A refused vote: (status, one-line reason)."""


def stored_label(shown: str, order: str) -> str:
    """A choice made on the page (LEFT/RIGHT/TIE/BOTH_BAD) in the pair's stored positions."""
    if shown in ("TIE", "BOTH_BAD"):
        return shown
    if shown not in ("LEFT", "RIGHT"):
        raise VoteError(f"unknown choice {shown!r}")
    return SIDE_TO_LABEL[order][shown]


def make_server(store: Store, rules: Rules, host: str = "127.0.0.1", port: int = 8080) -> ThreadingHTTPServer:
    """A threading HTTP server for this store (port 0: any free port)."""
    handler = type("VoteHandler", (VoteHandler,), {"store": store, "rules": rules,
                                                   "dimensions": json.loads(store.setting("dimensions") or "[]")})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


class VoteHandler(BaseHTTPRequestHandler):
    store: Store
    rules: Rules
    dimensions: list[str]
    server_version = "judgebench-annotate"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        """No access log: request lines carry invite tokens."""

    # plumbing

    def _send(self, status: int, body: str, content_type: str = "text/html; charset=utf-8", headers: dict[str, str] | None = None) -> None:
        data = body.encode()
        self.send_response(status)
        for key, value in {"Content-Type": content_type, "Content-Length": str(len(data)), "Content-Security-Policy": CSP,
                           "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                           "Cache-Control": "no-store", **(headers or {})}.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _redirect(self, location: str, headers: dict[str, str] | None = None) -> None:
        self._send(HTTPStatus.SEE_OTHER, "", headers={"Location": location, **(headers or {})})

    def _token(self) -> str | None:
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            return auth[7:].strip()
        cookie = SimpleCookie(self.headers.get("Cookie", ""))
        return cookie[COOKIE].value if COOKIE in cookie else None

    def _annotator(self) -> Annotator | None:
        who = self.store.annotator_for(self._token())
        if who is None:
            self._refuse(HTTPStatus.FORBIDDEN, "no access: open the invite link your organiser sent you")
        return who

    def _wants_json(self) -> bool:
        return "application/json" in self.headers.get("Accept", "")

    def _guard(self, action: Any) -> None:
        try:
            action()
        except Exception as exc:  # one line to the log and the client, never a traceback
            print(f"judgebench annotate: {self.command} {self.path.split('?')[0][:40]}: {type(exc).__name__}: {exc}", file=sys.stderr)
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, message_page("Server error", "The request failed; try again."))

    # routes

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self._guard(self._get)

    def do_POST(self) -> None:  # noqa: N802
        self._guard(self._post)

    def _get(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/static/vote.js":
            return self._send(HTTPStatus.OK, SCRIPT, "text/javascript; charset=utf-8")
        if path == "/static/vote.css":
            return self._send(HTTPStatus.OK, STYLE, "text/css; charset=utf-8")
        if path.startswith("/t/"):
            token = path[3:]
            if self.store.annotator_for(token) is None:
                return self._send(HTTPStatus.FORBIDDEN, message_page("No access", "This invite link is not valid."))
            return self._redirect("/", {"Set-Cookie": f"{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"})
        if path == "/":
            if (who := self._annotator()) is not None:
                self._next_page(who)
            return None
        if path == "/admin":
            if (who := self._annotator()) is None:
                return None
            if not who.is_admin:
                return self._send(HTTPStatus.FORBIDDEN, message_page("No access", "The admin view needs an admin token."))
            return self._admin()
        return self._send(HTTPStatus.NOT_FOUND, message_page("Not found", "No such page."))

    def _state(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[tuple[str, str, int]]]:
        return self.store.pairs(), self.store.votes(), self.store.skips()

    def _next_page(self, who: Annotator) -> None:
        pairs, votes, skips = self._state()
        showing = next_showing(who.name, who.expertise, pairs, votes, skips, self.rules, self.store.secret, datetime.now(timezone.utc))
        if showing is None:
            return self._send(HTTPStatus.OK, message_page("All done", "No pair is waiting for your vote. Thank you!"))
        pair = next(p for p in pairs if p["id"] == showing.pair_id)
        voted = sum(v["annotator"] == who.name for v in votes)
        left = open_for(who.name, who.expertise, pairs, votes, skips, self.rules)
        page = vote_page(pair, round_=showing.round, shown_order=showing.shown_order, vote_id=str(uuid.uuid4()),
                         shown_at=now_iso(), dimensions=self.dimensions, voted=voted, left=left, annotator=who.name)
        return self._send(HTTPStatus.OK, page)

    def _admin(self) -> None:
        from judgebench.human.annotate.assign import admin_tables

        pairs, votes, skips = self._state()
        names = [a.name for a in self.store.annotators()]
        rules = (f"target {self.rules.target} votes per pair; repeats: {self.rules.repeat_share:.0%} of voted pairs "
                 f"after {self.rules.repeat_delay_s:g} s")
        self._send(HTTPStatus.OK, admin_page(admin_tables(pairs, votes, skips, names, self.rules), rules))

    def _form(self) -> dict[str, str]:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise VoteError("request too large")
        fields = parse_qs(self.rfile.read(length).decode("utf-8", "replace"), keep_blank_values=True)
        return {key: values[0] for key, values in fields.items()}

    def _post(self) -> None:
        path = self.path.split("?", 1)[0]
        if path not in ("/vote", "/skip"):
            return self._send(HTTPStatus.NOT_FOUND, message_page("Not found", "No such page."))
        if (who := self._annotator()) is None:
            return None
        try:
            form = self._form()
            if path == "/skip":
                pair_id, round_ = self._pair_and_round(form, who)
                self.store.add_skip(who.name, pair_id, round_)
                status = "skipped"
            else:
                status = self.store.add_vote(self._vote(form, who))
        except VoteError as exc:
            return self._refuse(HTTPStatus.BAD_REQUEST, str(exc))
        if status == "conflict":
            return self._refuse(HTTPStatus.CONFLICT, "you already voted on this pair")
        if self._wants_json():
            return self._send(HTTPStatus.OK, json.dumps({"status": status}), "application/json")
        return self._redirect("/")

    def _refuse(self, status: int, reason: str) -> None:
        if self._wants_json():
            return self._send(status, json.dumps({"error": reason}), "application/json")
        return self._send(status, message_page("No access" if status == HTTPStatus.FORBIDDEN else "Not recorded", reason))

    def _pair_and_round(self, form: dict[str, str], who: Annotator) -> tuple[str, int]:
        pair_id = form.get("pair_id", "")
        if self.store.pair(pair_id) is None:
            raise VoteError(f"unknown pair {pair_id[:80]!r}")
        round_ = {"1": 1, "2": 2}.get(form.get("round", ""))
        if round_ is None:
            raise VoteError("round must be 1 or 2")
        if round_ == 2 and not any(v["annotator"] == who.name and v["pair_id"] == pair_id and v["round"] == 1 for v in self.store.votes()):
            raise VoteError("a repeat needs a first vote on this pair")
        return pair_id, round_

    def _vote(self, form: dict[str, str], who: Annotator) -> dict[str, Any]:
        pair_id, round_ = self._pair_and_round(form, who)
        vote_id = form.get("vote_id", "")
        if not VOTE_ID.fullmatch(vote_id):
            raise VoteError("vote_id must be 8-64 letters, digits or dashes")
        order = shown_order(self.store.secret, who.name, pair_id, round_)
        choice, choices = None, None
        if self.dimensions:
            picked = {d: stored_label(form.get(f"dim:{d}", ""), order) for d in self.dimensions}
            choices = json.dumps(picked)
        else:
            choice = stored_label(form.get("choice", ""), order)
        assert choice is None or choice in LABELS
        submitted = now_iso()
        return {"vote_id": vote_id, "pair_id": pair_id, "annotator": who.name, "round": round_, "choice": choice,
                "choices": choices, "shown_order": order, "shown_at": _time(form.get("shown_at")),
                "submitted_at": submitted, "seconds": _seconds(form.get("shown_at"), submitted),
                "comment": (form.get("comment") or "").strip()[:4000] or None}


def _time(text: str | None) -> str | None:
    try:
        return datetime.fromisoformat((text or "").replace("Z", "+00:00")).isoformat() if text else None
    except ValueError:
        raise VoteError("shown_at is not an ISO time") from None


def _seconds(shown_at: str | None, submitted: str) -> float | None:
    """Time on the page, from the time the server wrote into the page (clamped to [0, 1 day])."""
    if not shown_at:
        return None
    start = datetime.fromisoformat(shown_at.replace("Z", "+00:00"))
    end = datetime.fromisoformat(submitted.replace("Z", "+00:00"))
    return round(min(max((end - start).total_seconds(), 0.0), 86400.0), 3)
