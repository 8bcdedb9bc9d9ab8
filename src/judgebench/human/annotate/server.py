"""The voting web server: a Starlette app served by uvicorn (h11) over a Store.

    server = make_server(store, rules, host="127.0.0.1", port=8080)
    server.serve_forever()          # or: a thread, then server.shutdown()

Routes: GET /t/TOKEN (an invite link: sets an HttpOnly SameSite=Strict cookie for SESSION_S, then /), GET / (the
next pair), POST /vote, POST /skip, POST /undo, POST /logout (clears the cookie on this browser; the invite
link signs in again), GET /admin (admin tokens only), GET /guidelines, GET /static/vote.js|css.

The server enforces its own rules on every vote (issue 27), never trusting the form:
- assignment: a vote names the opaque id the page carried (`store.pid`, a keyed HMAC per annotator
  and pair); it is accepted only for a pair and round the server showed to this annotator
  (`servings`) and not yet answered (voted or skipped); the side shown and the time shown are the server's;
- expertise: the pair must be routed to the annotator's tags; target: a round-1 vote on a pair
  that has `--target-votes` votes is refused ('full', checked under the write lock);
- round 2 exists only when the server served the repeat (after the delay, for a picked pair);
- a cookie-authenticated POST needs the page's CSRF token (an HMAC of the session token under a
  per-database key) and, when it carries an `Origin`, the server's own; `Authorization: Bearer` scripts
  need no CSRF token, since a browser never attaches that header across origins;
- a form field given twice, or a comment over COMMENT_MAX characters, is refused (400), never picked or cut;
- bodies are capped at MAX_BODY (413), malformed headers are h11's 400, a connection that sends no
  complete request within `head_timeout` seconds is closed, idle keep-alive after `idle_timeout`.
A vote is acknowledged (303 to the next pair, or JSON with `Accept: application/json`) only after
its transaction committed.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import re
import socket
import sys
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from uvicorn.protocols.http.h11_impl import H11Protocol

from judgebench.core.records import LABELS
from judgebench.human.annotate.assign import (
    Rules,
    is_gold,
    next_showing,
    open_for,
    routed,
    shown_order,
)
from judgebench.human.annotate.page import (
    admin_page,
    guidelines_page,
    message_page,
    vote_page,
)
from judgebench.human.annotate.store import Annotator, Store, now_iso

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; font-src 'self'; form-action 'self'; img-src 'none'; "
       "base-uri 'none'; frame-ancestors 'none'")
COOKIE = "jb_token"
SESSION_S = 14 * 24 * 3600  # the cookie's lifetime: a browser left signed in forgets it after two weeks
MAX_BODY = 64 * 1024
SIDE_TO_LABEL = {"AB": {"LEFT": "A", "RIGHT": "B"}, "BA": {"LEFT": "B", "RIGHT": "A"}}
VOTE_ID = re.compile(r"[A-Za-z0-9-]{8,64}")
UNDO_WINDOW_S = 60.0  # a vote can be taken back this long after it was cast
RESERVE_S = 30 * 60.0  # an unanswered showing counts as a vote to come this long (assign.next_showing)


class VoteError(Exception):
    """A refused request: (one-line reason, HTTP status); `back`: its page links back to the voting page."""

    def __init__(self, reason: str, status: int = 400, *, back: bool = True):
        super().__init__(reason)
        self.status = status
        self.back = back


def stored_label(shown: str, order: str) -> str:
    """A choice made on the page (LEFT/RIGHT/TIE/BOTH_BAD) in the pair's stored positions."""
    if shown in ("TIE", "BOTH_BAD"):
        return shown
    if shown not in ("LEFT", "RIGHT"):
        raise VoteError(f"unknown choice {shown[:40]!r}")
    return SIDE_TO_LABEL[order][shown]


def csrf_token(store: Store, token: str) -> str:
    """The CSRF token of a session: an HMAC of its invite token under the database's CSRF key."""
    return hmac.new(store.csrf_key, token.encode(), hashlib.sha256).hexdigest()[:32]


@dataclass
class Voting:
    """Everything a request needs: the store, the rules, the dimensions, the guidelines text."""

    store: Store
    rules: Rules
    dimensions: list[str]
    guidelines: str | None = None
    undo_window_s: float = UNDO_WINDOW_S


# ---------------------------------------------------------------- responses


def _headers(extra: dict[str, str] | None = None) -> dict[str, str]:
    return {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin",
            "Cache-Control": "no-store", "X-Frame-Options": "DENY", **(extra or {})}


def _html(status: int, body: str, headers: dict[str, str] | None = None) -> Response:
    return Response(body, status, _headers(headers), media_type="text/html; charset=utf-8")


def _json(status: int, data: Any) -> Response:
    return Response(json.dumps(data), status, _headers(), media_type="application/json")


def _redirect(location: str, headers: dict[str, str] | None = None) -> Response:
    return Response("", 303, _headers({"Location": location, **(headers or {})}))


def _wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def _refuse(request: Request, status: int, reason: str, back: bool = True) -> Response:
    """The refusal as JSON for a script, else a page saying it (with a way back to voting: a dead end lost the
    expert's place)."""
    if _wants_json(request):
        return _json(status, {"error": reason})
    return _html(status, message_page("No access" if status == 403 else "Not recorded", reason, back=back))


# ---------------------------------------------------------------- request plumbing


def _token(request: Request) -> tuple[str | None, bool]:
    """The session token and whether it came as a Bearer header (a script) rather than the cookie."""
    auth = request.headers.get("authorization", "")
    if auth.startswith("Bearer "):
        return auth[7:].strip(), True
    return request.cookies.get(COOKIE), False


async def _form(request: Request) -> dict[str, str]:
    """The urlencoded body, at most MAX_BODY bytes however it is framed (h11 refuses a malformed Content-Length)."""
    length = request.headers.get("content-length")
    if length is not None and int(length) > MAX_BODY:
        raise VoteError("request too large", 413)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise VoteError("request too large", 413)
    try:
        fields = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True, max_num_fields=64)
    except ValueError:
        raise VoteError("too many form fields") from None
    if twice := next((key for key, values in fields.items() if len(values) > 1), None):  # which one is meant?
        raise VoteError(f"form field {twice[:40]!r} given more than once")
    return {key: values[0] for key, values in fields.items()}


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    if origin is None:
        return True  # not a browser's cross-site form or fetch (those always send Origin on POST)
    return origin == f"{request.url.scheme}://{request.headers.get('host', '')}"


def _guarded(endpoint: Callable[[Request, Voting], Any]) -> Callable[[Request], Any]:
    async def wrapped(request: Request) -> Response:
        voting: Voting = request.app.state.voting
        try:
            return await endpoint(request, voting)
        except VoteError as exc:
            return _refuse(request, exc.status, str(exc), exc.back)
        except Exception as exc:  # one line to the log and the client, never a traceback
            print(f"judgebench annotate: {request.method} {request.url.path[:40]}: {type(exc).__name__}: {exc}", file=sys.stderr)
            return _html(500, message_page("Server error", "The request failed; try again.", back=True))

    return wrapped


async def _who(request: Request, voting: Voting, *, post: bool = False) -> Annotator:
    token, bearer = _token(request)
    who = await run_in_threadpool(voting.store.annotator_for, token)
    if who is None:
        raise VoteError("no access: open the invite link your organiser sent you", 403, back=False)
    if post and not _same_origin(request):
        raise VoteError("refused: this form was sent from another site", 403)
    if post and not bearer:
        form = request.state.form
        if not hmac.compare_digest(form.get("csrf", ""), csrf_token(voting.store, token or "")):
            raise VoteError("refused: the page's security token is missing or stale; reload the page", 403)
    return who


# ---------------------------------------------------------------- routes


async def static(request: Request) -> Response:
    from judgebench.human.annotate.page import asset

    name = request.path_params["name"]
    found = asset(name)
    if found is None:
        return _html(404, message_page("Not found", "No such page."))
    data, media = found
    return Response(data, 200, _headers({"Cache-Control": "max-age=3600"}), media_type=media)


@_guarded
async def invite(request: Request, voting: Voting) -> Response:
    token = request.path_params["token"]
    if await run_in_threadpool(voting.store.annotator_for, token) is None:
        return _html(403, message_page("No access", "This invite link is not valid."))
    return _redirect("/", {"Set-Cookie": _cookie(token, SESSION_S), "Referrer-Policy": "no-referrer"})


def _cookie(value: str, max_age_s: int) -> str:
    return f"{COOKIE}={value}; Max-Age={max_age_s}; HttpOnly; SameSite=Strict; Path=/"


@_guarded
async def logout(request: Request, voting: Voting) -> Response:
    """Sign this browser out (same-origin form with the page's CSRF token): the cookie is cleared."""
    request.state.form = await _form(request)
    await _who(request, voting, post=True)
    page = message_page("Signed out", "This browser is signed out. Open your invite link to vote again.")
    return _html(200, page, {"Set-Cookie": _cookie("", 0)})


@_guarded
async def index(request: Request, voting: Voting) -> Response:
    who = await _who(request, voting)
    token, _ = _token(request)
    return _html(200, await run_in_threadpool(_next_page, voting, who, csrf_token(voting.store, token or ""),
                                              request.query_params.get("undone") == "1", request.query_params.get("full") == "1"))


def _next_page(voting: Voting, who: Annotator, csrf: str, undone: bool, full: bool = False) -> str:
    store, rules = voting.store, voting.rules
    pairs, votes, skips = store.pairs(), store.votes(), store.skips()
    mine = [v for v in votes if v["annotator"] == who.name]
    last = max(mine, key=lambda v: v["submitted_at"], default=None)
    undo, undo_s = None, None
    if last is not None and (age := _age_s(last["submitted_at"])) <= voting.undo_window_s:
        undo, undo_s = last["vote_id"], voting.undo_window_s - age
    now = datetime.now(timezone.utc)
    since = (now - timedelta(seconds=RESERVE_S)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    reserved = {pid: sum(n != who.name for n in names) for pid, names in store.reserved(since).items()}
    showing = next_showing(who.name, who.expertise, pairs, votes, skips, rules, store.secret, now, store.pending(who.name), reserved)
    if showing is None:
        return message_page("All done", "No pair is waiting for your vote. Thank you!", undo=undo, csrf=csrf, undo_s=undo_s)
    pair = next(p for p in pairs if p["id"] == showing.pair_id)
    served = store.serve(who.name, pair["id"], showing.round)
    left = open_for(who.name, who.expertise, pairs, votes, skips, rules, store.secret)
    return vote_page(pair, pid=served["pid"], round_=showing.round, shown_order=showing.shown_order,
                     vote_id=str(uuid.uuid4()), csrf=csrf, dimensions=voting.dimensions,
                     voted=sum(v["round"] == 1 for v in mine), left=left, annotator=who.name, undo=undo,
                     guidelines=voting.guidelines, first_visit=not mine and not skips_of(skips, who.name),
                     undone=undone, full=full, undo_s=undo_s)


def skips_of(skips: list[tuple[str, str, int]], name: str) -> bool:
    return any(a == name for a, _, _ in skips)


def _age_s(iso: str) -> float:
    return (datetime.now(timezone.utc) - datetime.fromisoformat(iso.replace("Z", "+00:00"))).total_seconds()


@_guarded
async def guidelines(request: Request, voting: Voting) -> Response:
    await _who(request, voting)
    if voting.guidelines is None:
        return _html(404, message_page("Not found", "No guidelines were given for this study."))
    return _html(200, guidelines_page(voting.guidelines))


@_guarded
async def admin(request: Request, voting: Voting) -> Response:
    who = await _who(request, voting)
    if not who.is_admin:
        return _html(403, message_page("No access", "The admin view needs an admin token."))
    return _html(200, await run_in_threadpool(_admin_page, voting))


def _admin_page(voting: Voting) -> str:
    from judgebench.human.annotate.quality import admin_tables, figured_annotators, human_duration

    store, rules = voting.store, voting.rules
    votes, skips = store.votes(), store.skips()
    names = figured_annotators(store.annotators(), votes, skips)
    text = (f"target {rules.target} votes per pair; repeats: {rules.repeat_share:.0%} of voted pairs "
            f"after {human_duration(rules.repeat_delay_s)}")
    if rules.gold_share:
        text += f"; gold pairs: {rules.gold_share:.0%} of pairs shown"
    return admin_page(admin_tables(store.pairs(), votes, skips, names, rules), text)


@_guarded
async def post(request: Request, voting: Voting) -> Response:
    action = request.url.path.strip("/")
    request.state.form = await _form(request)
    who = await _who(request, voting, post=True)
    form = request.state.form
    if action == "undo":
        status = await run_in_threadpool(_undo, voting, who, form)
    elif action == "skip":
        status = await run_in_threadpool(_skip, voting, who, form)
    else:
        status = await run_in_threadpool(_vote, voting, who, form)
    if status == "conflict":  # (most often a page left open in another tab or window)
        raise VoteError("you already voted on this pair, in another tab or window perhaps: that first vote is stored, "
                        "this one was not; your next pair is waiting", 409)
    if status == "was_skipped":  # (a Skip from another tab, sent at the same moment)
        raise VoteError("you skipped this pair", 409)
    if status == "id_taken":  # (a script reusing an id; the page makes a new one per vote)
        raise VoteError("this vote_id already holds another vote: send a new vote_id with each vote", 409)
    if status == "full":
        if not _wants_json(request):  # a person on the page: straight on to the next pair, with a note
            return _redirect("/?full=1")
        raise VoteError("this pair has all the votes it needs; your next pair is waiting", 409)
    if _wants_json(request):
        return _json(200, {"status": status})
    return _redirect("/?undone=1" if status == "undone" else "/")


def _showing(voting: Voting, who: Annotator, form: dict[str, str]) -> tuple[dict[str, Any], int, str]:
    """The pair, round and shown_at of the showing a form answers, checked against what was served."""
    pid = form.get("pair_id", "")
    round_ = {"1": 1, "2": 2}.get(form.get("round", ""))
    if round_ is None:
        raise VoteError("round must be 1 or 2")
    served = voting.store.servings(who.name, pid) if pid else {}
    if not served:
        raise VoteError(f"unknown pair {pid[:80]!r}: vote on the pairs your page shows")
    if round_ not in served:
        raise VoteError("this pair was not shown to you again: a repeat is decided by the server" if round_ == 2
                        else "this pair was not shown to you")
    pair_id, shown_at = served[round_]
    pair = voting.store.pair(pair_id)
    if pair is None:
        raise VoteError("unknown pair")
    if not routed(pair, who.expertise):
        raise VoteError("this pair is outside your expertise", 403)
    if voting.store.skipped(who.name, pair_id, round_):
        raise VoteError("you skipped this pair", 409)
    if form.get("shown_at"):
        _aware(form["shown_at"], "shown_at")  # validated only: the time shown is the server's
    return pair, round_, shown_at


def _vote(voting: Voting, who: Annotator, form: dict[str, str]) -> str:
    pair, round_, shown_at = _showing(voting, who, form)
    vote_id = form.get("vote_id", "")
    if not VOTE_ID.fullmatch(vote_id):
        raise VoteError("vote_id must be 8-64 letters, digits or dashes")
    order = shown_order(voting.store.secret, who.name, pair["id"], round_)
    choice, choices = None, None
    if voting.dimensions:
        picked = {d: stored_label(form.get(f"dim:{d}", ""), order) for d in voting.dimensions}
        choices = json.dumps(picked)
    else:
        choice = stored_label(form.get("choice", ""), order)
    assert choice is None or choice in LABELS
    submitted = now_iso()
    vote = {"vote_id": vote_id, "pair_id": pair["id"], "annotator": who.name, "round": round_, "choice": choice,
            "choices": choices, "shown_order": order, "shown_at": shown_at, "submitted_at": submitted,
            "seconds": _seconds(shown_at, submitted), "comment": _comment(form)}
    return voting.store.cast(vote, None if is_gold(pair) else voting.rules.target)


COMMENT_MAX = 4000  # characters, a line break counted as one (the page's textarea holds no more)


def _comment(form: dict[str, str]) -> str | None:
    """The vote's comment, its line breaks as LF; a longer one is refused, never cut (the page cannot send one). A
    browser sends a textarea's line breaks as CRLF, which its maxlength counts as one: 4,000 typed characters over
    40 lines arrived as 4,038 and were refused, the vote lost."""
    comment = (form.get("comment") or "").replace("\r\n", "\n").replace("\r", "\n").strip()
    if len(comment) > COMMENT_MAX:
        raise VoteError(f"comment of {len(comment):,} characters: at most {COMMENT_MAX:,}")
    return comment or None


def _skip(voting: Voting, who: Annotator, form: dict[str, str]) -> str:
    pair, round_, _ = _showing(voting, who, form)
    reason = (form.get("reason") or "").strip()[:200] or None
    return voting.store.add_skip(who.name, pair["id"], round_, reason)


def _undo(voting: Voting, who: Annotator, form: dict[str, str]) -> str:
    vote_id = form.get("vote_id", "")
    if not vote_id:  # (a script without it was told its vote could not be undone any more)
        raise VoteError("vote_id missing: send the vote_id of the vote to undo")
    if not voting.store.undo(who.name, vote_id, voting.undo_window_s):
        raise VoteError("only your last vote can be undone, within a minute of casting it: that vote stays stored", 409)
    return "undone"


def _aware(text: str, name: str) -> datetime:
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise VoteError(f"{name} is not an ISO time") from None
    if when.tzinfo is None or when.utcoffset() is None:
        raise VoteError(f"{name} has no time zone")
    return when


def _seconds(shown_at: str | None, submitted: str) -> float | None:
    """Time on the page, from the time the server first served it (clamped to [0, 1 day])."""
    if not shown_at:
        return None
    start = _aware(shown_at, "shown_at")
    end = _aware(submitted, "submitted_at")
    return round(min(max((end - start).total_seconds(), 0.0), 86400.0), 3)


def make_app(voting: Voting) -> Starlette:
    routes = [
        Route("/static/{name}", static),
        Route("/t/{token}", invite),
        Route("/", index),
        Route("/guidelines", guidelines),
        Route("/admin", admin),
        Route("/vote", post, methods=["POST"]),
        Route("/skip", post, methods=["POST"]),
        Route("/undo", post, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
    ]

    async def not_found(request: Request, exc: Exception) -> Response:
        return _html(404, message_page("Not found", "No such page."))

    async def not_allowed(request: Request, exc: Exception) -> Response:
        return _html(405, message_page("Not allowed", "This page does not take that request."))

    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed})
    app.state.voting = voting
    return app


# ---------------------------------------------------------------- the server


class _Protocol(H11Protocol):
    """uvicorn's h11 protocol, plus a deadline for the first request: a connection that sends no
    complete request head within `head_timeout` seconds is closed (uvicorn times out idle
    keep-alive connections only after a response)."""

    head_timeout: float = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            # the head and the body of an answer go out as two writes: without TCP_NODELAY the body
            # waits for the client's delayed ACK of the head (40 ms per request on Linux)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._head_timer = self.loop.call_later(self.head_timeout, self._head_expired)

    def _head_expired(self) -> None:
        if self.cycle is None and not self.transport.is_closing():
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_timer.cancel()
        super().connection_lost(exc)


class VoteServer:
    """uvicorn serving the app on a socket bound at construction (so port 0 is known at once)."""

    def __init__(self, app: Starlette, host: str, port: int, *, head_timeout: float, idle_timeout: int, max_connections: int):
        import uvicorn

        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.socket.bind((host, port))
        except OSError:
            self.socket.close()
            raise
        self.socket.listen(2048)
        self.socket.set_inheritable(True)
        self.server_address = self.socket.getsockname()[:2]
        protocol = type("Protocol", (_Protocol,), {"head_timeout": head_timeout})
        config = uvicorn.Config(app, http=protocol, lifespan="off", access_log=False, log_level="warning",
                                timeout_keep_alive=idle_timeout, limit_concurrency=max_connections,
                                h11_max_incomplete_event_size=16 * 1024, server_header=False, date_header=False)
        self.server = uvicorn.Server(config)
        self._done = threading.Event()

    def serve_forever(self) -> None:
        try:
            self.server.run(sockets=[self.socket])
        finally:
            self._done.set()

    def shutdown(self) -> None:
        self.server.should_exit = True
        self._done.wait(30)

    def server_close(self) -> None:
        self.socket.close()


def make_server(store: Store, rules: Rules, host: str = "127.0.0.1", port: int = 8080, *, guidelines: str | None = None,
                head_timeout: float = 10.0, idle_timeout: int = 5, max_connections: int = 1000,
                undo_window_s: float = UNDO_WINDOW_S) -> VoteServer:
    """The voting server for this store (port 0: any free port; `server_address` tells which)."""
    voting = Voting(store, rules, json.loads(store.setting("dimensions") or "[]"), guidelines, undo_window_s)
    return VoteServer(make_app(voting), host, port, head_timeout=head_timeout, idle_timeout=idle_timeout,
                      max_connections=max_connections)


__all__ = ["CSP", "COOKIE", "MAX_BODY", "SESSION_S", "VoteError", "VoteServer", "Voting", "csrf_token", "make_app", "make_server",
           "stored_label"]
