"""Issue 27, "The voting server does not enforce its own rules": each attack performed over HTTP
against the running server, and refused."""

from __future__ import annotations

import hashlib
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from annotate_helpers import make_store, pair_rows, post_vote, served, serving

from judgebench.human.annotate.assign import Rules
from judgebench.human.annotate.export import export_votes
from judgebench.human.annotate.server import MAX_BODY, SESSION_S, csrf_token
from judgebench.human.annotate.store import Store


def _page(base: str, token: str) -> str:
    request = urllib.request.Request(base + "/", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request) as answer:
        return answer.read().decode()


def _field(page: str, name: str) -> str:
    return page.split(f"name='{name}' value='")[1].split("'")[0]


def _store(tmp_path: Path, n: int = 4, kind: str = "sqlite", **overrides: object) -> Store:
    store = make_store(kind, tmp_path)
    store.add_pairs(pair_rows(n, **overrides))
    return store


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_vote_on_a_pair_never_shown_is_refused(kind: str, tmp_path: Path) -> None:
    store = _store(tmp_path, kind=kind)
    ann, other = store.add_annotator("ann", []), store.add_annotator("other", [])
    with serving(store) as base:
        theirs = _field(_page(base, other), "pair_id")  # a pair shown to someone else, under their opaque id
        for pid in ("p0", "p1", theirs, store.pid("other", "p2")):
            status, body = post_vote(base, ann, {"pair_id": pid, "round": "1", "vote_id": f"vote-{pid}", "choice": "LEFT"})
            assert status == 400 and "unknown pair" in body["error"], (pid, status, body)
    assert store.votes() == []


def test_a_vote_outside_the_annotators_expertise_is_refused(tmp_path: Path) -> None:
    store = _store(tmp_path)
    bio = store.add_annotator("bio-expert", ["bio"])
    with serving(store) as base:
        assert _field(_page(base, bio), "pair_id") in {store.pid("bio-expert", "p1"), store.pid("bio-expert", "p3")}
        pid = served(store, bio, "p0")  # a phys pair recorded as shown (a stale showing, a changed routing)
        status, body = post_vote(base, bio, {"pair_id": pid, "round": "1", "vote_id": "vote-phys-0", "choice": "LEFT"})
    assert status == 403 and "expertise" in body["error"]
    assert store.votes() == []


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_vote_on_a_pair_already_at_target_is_refused(kind: str, tmp_path: Path) -> None:
    store = _store(tmp_path, n=1, kind=kind)
    first, late = store.add_annotator("first", []), store.add_annotator("late", [])
    with serving(store, Rules(target=1)) as base:
        page_first, page_late = _page(base, first), _page(base, late)  # both shown p0 while it had no vote
        assert post_vote(base, first, {"pair_id": _field(page_first, "pair_id"), "round": "1", "vote_id": "vote-first",
                                       "choice": "LEFT"})[0] == 200
        status, body = post_vote(base, late, {"pair_id": _field(page_late, "pair_id"), "round": "1", "vote_id": "vote-late",
                                              "choice": "RIGHT"})
        assert status == 409 and "all the votes" in body["error"]
        # from the page itself (cookie, CSRF token): on to the next page with a note, nothing stored
        form = f"pair_id={_field(page_late, 'pair_id')}&round=1&vote_id=vote-late-page&choice=RIGHT&csrf={csrf_token(store, late)}"
        assert _cookie_post(base, late, form, base) == 303
        assert "All done" in _page(base, late)
    assert [v["annotator"] for v in store.votes()] == ["first"]


def test_round_two_right_after_round_one_is_refused(tmp_path: Path) -> None:
    store = _store(tmp_path, n=2)
    ann = store.add_annotator("ann", [])
    with serving(store, Rules(target=3, repeat_share=1.0, repeat_delay_s=3600)) as base:
        pid = _field(_page(base, ann), "pair_id")
        assert post_vote(base, ann, {"pair_id": pid, "round": "1", "vote_id": "vote-one", "choice": "LEFT"})[0] == 200
        for choice in ("LEFT", "RIGHT"):  # the attack: a round-2 copy of the first vote, at once
            status, body = post_vote(base, ann, {"pair_id": pid, "round": "2", "vote_id": f"vote-two-{choice}", "choice": choice})
            assert status == 400 and "repeat is decided by the server" in body["error"]
        assert "name='round' value='1'" in _page(base, ann)  # the repeat is not due for an hour
    done = export_votes(store, tmp_path / "votes.jsonl")
    assert (done.votes, done.repeats, done.agreement) == (1, 0, None)  # no made-up 100% self-consistency


def _cookie_post(base: str, token: str, body: str, origin: str | None, path: str = "/vote") -> int:
    return _cookie_answer(base, token, body, origin, path)[0]


def _cookie_answer(base: str, token: str, body: str, origin: str | None, path: str) -> tuple[int, str]:
    """(status, Set-Cookie header) of a cookie-authenticated form POST, redirects not followed."""
    headers = {"Cookie": f"jb_token={token}", "Content-Type": "application/x-www-form-urlencoded"}
    if origin is not None:
        headers["Origin"] = origin
    request = urllib.request.Request(base + path, data=body.encode(), method="POST", headers=headers)

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    try:
        with urllib.request.build_opener(NoRedirect).open(request) as answer:
            return answer.status, answer.headers.get("Set-Cookie", "")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Set-Cookie", "")


def test_the_session_cookie_expires_and_sign_out_clears_it(tmp_path: Path) -> None:
    """The invite link's cookie lasts SESSION_S (two weeks), not for ever; the page's Sign out form (same
    origin, CSRF token) clears it; a sign-out posted from another site or without the token is refused."""
    store = _store(tmp_path)
    ann = store.add_annotator("ann", [])
    with serving(store) as base:
        opener = urllib.request.build_opener(type("NoRedirect", (urllib.request.HTTPRedirectHandler,),
                                                  {"redirect_request": lambda *a, **k: None}))
        with pytest.raises(urllib.error.HTTPError) as invited:
            opener.open(base + f"/t/{ann}")
        assert invited.value.code == 303
        assert f"Max-Age={SESSION_S};" in invited.value.headers["Set-Cookie"] and SESSION_S == 14 * 24 * 3600
        page = _page(base, ann)
        csrf = _field(page, "csrf")
        assert "action='/logout'" in page
        assert _cookie_answer(base, ann, f"csrf={csrf}", "http://127.0.0.1:18099", "/logout")[0] == 403
        assert _cookie_answer(base, ann, "", base, "/logout")[0] == 403
        status, cookie = _cookie_answer(base, ann, f"csrf={csrf}", base, "/logout")
        assert status == 200 and cookie.startswith("jb_token=;") and "Max-Age=0;" in cookie


def test_a_cookie_session_needs_the_same_origin_and_the_csrf_token(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ann = store.add_annotator("ann", [])
    with serving(store) as base:
        page = _page(base, ann)
        pid, csrf = _field(page, "pair_id"), _field(page, "csrf")
        assert csrf == csrf_token(store, ann) and csrf not in _page(base, store.add_annotator("other", []))
        vote = f"pair_id={pid}&round=1&vote_id=vote-csrf-1&choice=LEFT"
        # the attack of the issue: a page on another port of the same host auto-posts with the cookie
        assert _cookie_post(base, ann, vote + f"&csrf={csrf}", "http://127.0.0.1:18099") == 403
        assert _cookie_post(base, ann, vote, None) == 403  # no CSRF token
        assert _cookie_post(base, ann, vote + "&csrf=" + "0" * 32, base) == 403  # a wrong one
        assert _cookie_post(base, ann, vote + f"&csrf={csrf}", "null") == 403
        assert store.votes() == []
        assert _cookie_post(base, ann, vote + f"&csrf={csrf}", base) == 303  # the page itself: stored
    assert [v["vote_id"] for v in store.votes()] == ["vote-csrf-1"]


def test_pair_ids_on_the_page_are_opaque_and_the_export_keeps_the_real_ones(tmp_path: Path) -> None:
    rows = pair_rows(1)
    real = hashlib.sha256("\0".join((rows[0]["question"], "m1", "m2")).encode()).hexdigest()[:12]
    store = Store(tmp_path / "v.sqlite")
    store.add_pairs([{**rows[0], "id": real}])
    ann, other = store.add_annotator("ann", []), store.add_annotator("other", [])
    with serving(store) as base:
        page, other_page = _page(base, ann), _page(base, other)
        pid = _field(page, "pair_id")
        assert real not in page and "m1" not in page and "m2" not in page
        assert pid != _field(other_page, "pair_id")  # per annotator: ids cannot be compared between annotators
        assert post_vote(base, ann, {"pair_id": pid, "round": "1", "vote_id": "vote-opaque", "choice": "TIE"})[0] == 200
    export_votes(store, tmp_path / "votes.jsonl")
    assert f'"pair_id": "{real}"' in (tmp_path / "votes.jsonl").read_text().replace('":"', '": "')
    assert Store(tmp_path / "v.sqlite").pid("ann", real) == pid  # stable for the database (its own key)


def _raw(base: str, request: bytes, timeout: float = 5) -> bytes:
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
            if b"\r\n\r\n" in data and len(data) > 200:
                break
        return data


def test_malformed_and_oversized_requests_are_refused_quickly(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ann = store.add_annotator("ann", [])
    with serving(store) as base:
        auth = f"Authorization: Bearer {ann}\r\nContent-Type: application/x-www-form-urlencoded\r\n".encode()
        for length in (b"-1", b"abc"):
            start = time.monotonic()
            answer = _raw(base, b"POST /vote HTTP/1.1\r\nHost: x\r\n" + auth + b"Content-Length: " + length + b"\r\n\r\nx=1")
            assert answer.startswith(b"HTTP/1.1 400") and time.monotonic() - start < 3, answer[:80]
        big = b"choice=" + b"L" * (MAX_BODY + 10)
        answer = _raw(base, b"POST /vote HTTP/1.1\r\nHost: x\r\n" + auth + f"Content-Length: {len(big)}\r\n\r\n".encode() + big)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:80]
        chunked = b"POST /vote HTTP/1.1\r\nHost: x\r\n" + auth + b"Transfer-Encoding: chunked\r\n\r\n"
        chunks = b"".join(b"%x\r\n" % 16384 + b"L" * 16384 + b"\r\n" for _ in range(6)) + b"0\r\n\r\n"
        assert _raw(base, chunked + chunks).startswith(b"HTTP/1.1 413")  # no Content-Length: capped while read
        many = "&".join(f"f{i}=1" for i in range(100)).encode()
        answer = _raw(base, b"POST /vote HTTP/1.1\r\nHost: x\r\n" + auth + f"Content-Length: {len(many)}\r\n\r\n".encode() + many)
        assert answer.startswith(b"HTTP/1.1 400"), answer[:80]  # too many fields: refused, not a 500
        assert _raw(base, b"POST /admin HTTP/1.1\r\nHost: x\r\n" + auth + b"Content-Length: 3\r\n\r\nx=1").startswith(b"HTTP/1.1 405")
        assert _raw(base, b"POST /other HTTP/1.1\r\nHost: x\r\n" + auth + b"Content-Length: 3\r\n\r\nx=1").startswith(b"HTTP/1.1 404")
        pid = _field(_page(base, ann), "pair_id")
        for shown_at in ("2026-12-01T10:00:00", "yesterday"):  # naive, garbage: a 400, never a 500
            status, body = post_vote(base, ann, {"pair_id": pid, "round": "1", "vote_id": "vote-time", "choice": "LEFT",
                                                 "shown_at": shown_at})
            assert status == 400 and "shown_at" in body["error"]
        assert post_vote(base, ann, {"pair_id": pid, "round": "1", "vote_id": "vote-time", "choice": "LEFT"})[0] == 200
    assert store.votes()[0]["seconds"] >= 0  # timed from the server's own showing


@pytest.mark.parametrize("connections", [300])
def test_idle_connections_are_closed(tmp_path: Path, connections: int) -> None:
    store = _store(tmp_path)
    ann = store.add_annotator("ann", [])
    with serving(store, head_timeout=1.0, idle_timeout=1) as base:
        host, port = base.removeprefix("http://").split(":")
        idle = [socket.create_connection((host, int(port)), timeout=10) for _ in range(connections)]
        slow = socket.create_connection((host, int(port)), timeout=10)
        slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # a request head never finished
        kept = socket.create_connection((host, int(port)), timeout=10)
        kept.sendall(b"GET /static/vote.css HTTP/1.1\r\nHost: x\r\n\r\n")  # answered, then idle keep-alive
        assert kept.recv(100).startswith(b"HTTP/1.1 200")
        time.sleep(2.5)
        try:
            for sock in [*idle, slow]:
                assert sock.recv(1) == b""  # closed by the server
            kept.settimeout(5)
            while chunk := kept.recv(65536):  # the rest of the answer, then the close
                assert chunk
        finally:
            for sock in [*idle, slow, kept]:
                sock.close()
        assert "judgebench vote" in _page(base, ann)  # and the server still serves


def _post(base: str, token: str, path: str, fields: dict[str, str]) -> tuple[int, dict]:
    data = urllib.parse.urlencode(fields).encode()
    request = urllib.request.Request(base + path, data=data, method="POST", headers={
        "Authorization": f"Bearer {token}", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def test_undo_takes_back_only_ones_own_last_vote_within_the_window_and_skips_keep_a_reason(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ann, other = store.add_annotator("ann", []), store.add_annotator("other", [])
    with serving(store, Rules(target=3)) as base:
        pid = _field(_page(base, ann), "pair_id")
        assert post_vote(base, ann, {"pair_id": pid, "round": "1", "vote_id": "vote-ann-1", "choice": "LEFT"})[0] == 200
        assert _post(base, other, "/undo", {"vote_id": "vote-ann-1"})[0] == 409  # not theirs
        assert _post(base, ann, "/undo", {}) == (400, {"error": "vote_id missing: send the vote_id of the vote to undo"})
        assert _post(base, ann, "/undo", {"vote_id": "vote-ann-1"}) == (200, {"status": "undone"})
        assert store.votes() == [] and _field(_page(base, ann), "pair_id") == pid  # the pair comes back
        assert post_vote(base, ann, {"pair_id": pid, "round": "1", "vote_id": "vote-ann-2", "choice": "RIGHT"})[0] == 200
        nxt = _field(_page(base, ann), "pair_id")
        assert _post(base, ann, "/skip", {"pair_id": nxt, "round": "1", "reason": "the question is unclear"}) == (200, {"status": "skipped"})
        assert post_vote(base, ann, {"pair_id": nxt, "round": "1", "vote_id": "vote-ann-x", "choice": "TIE"})[0] == 409  # skipped
        third = _field(_page(base, ann), "pair_id")
        assert third not in (pid, nxt)
        assert post_vote(base, ann, {"pair_id": third, "round": "1", "vote_id": "vote-ann-3", "choice": "TIE"})[0] == 200
        assert _post(base, ann, "/undo", {"vote_id": "vote-ann-2"})[0] == 409  # no longer the last vote
    with serving(store, Rules(target=3), undo_window_s=0.0) as base:
        assert _post(base, ann, "/undo", {"vote_id": "vote-ann-3"})[0] == 409  # past the window
    assert [v["vote_id"] for v in store.votes()] == ["vote-ann-2", "vote-ann-3"]
    assert [r[3] for r in store.skip_reasons()] == ["the question is unclear"]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_form_that_says_two_things_is_refused_and_nothing_is_cut(kind: str, tmp_path: Path) -> None:
    """The second attack: `choice=RIGHT&choice=LEFT` was stored as the first value, a 60,000-character comment cut
    to 4,000 and acknowledged, and a resend of a vote id with another choice answered 'duplicate' (200)."""
    from judgebench.human.annotate.server import COMMENT_MAX

    store = _store(tmp_path, n=2, kind=kind)
    ann = store.add_annotator("ann", [])
    with serving(store, Rules(target=3)) as base:
        pid = _field(_page(base, ann), "pair_id")
        request = urllib.request.Request(f"{base}/vote", method="POST", data=(
            f"pair_id={pid}&round=1&vote_id=vote-twice&choice=RIGHT&choice=LEFT").encode(), headers={
            "Authorization": f"Bearer {ann}", "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded"})
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request)
        assert caught.value.code == 400 and "'choice' given more than once" in json.loads(caught.value.read())["error"]
        long = {"pair_id": pid, "round": "1", "vote_id": "vote-long", "choice": "LEFT", "comment": "x" * (COMMENT_MAX + 1)}
        status, body = post_vote(base, ann, long)
        assert status == 400 and "at most 4,000" in body["error"]
        vote = {"pair_id": pid, "round": "1", "vote_id": "vote-one", "choice": "LEFT", "comment": "x" * COMMENT_MAX}
        assert post_vote(base, ann, vote) == (200, {"status": "stored"})
        assert post_vote(base, ann, vote) == (200, {"status": "duplicate"})  # a retry of the same vote
        status, body = post_vote(base, ann, {**vote, "choice": "RIGHT"})  # the vote changed by resending it
        assert status == 409 and "you already voted on this pair" in body["error"]
        next_pid = _field(_page(base, ann), "pair_id")  # the id reused for the next pair: said so, not "already voted"
        status, body = post_vote(base, ann, {**vote, "pair_id": next_pid})
        assert status == 409 and "send a new vote_id with each vote" in body["error"]
    assert [(v["vote_id"], len(v["comment"])) for v in store.votes()] == [("vote-one", COMMENT_MAX)]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_stale_tab_cannot_skip_a_pair_its_annotator_voted_on(kind: str, tmp_path: Path) -> None:
    """An outside tester's leftover: the page open in two tabs, a vote in one and Skip in the other stored a skip of
    the voted pair too (the skip path never looked for the vote), counted in the admin's skips. Refused as the
    second vote is: the first answer stands."""
    store = _store(tmp_path, n=2, kind=kind)
    ann = store.add_annotator("ann", [])
    with serving(store, Rules(target=3)) as base:
        pid = _field(_page(base, ann), "pair_id")
        assert post_vote(base, ann, {"pair_id": pid, "round": "1", "vote_id": "vote-ann-1", "choice": "LEFT"}) == (
            200, {"status": "stored"})
        status, body = _post(base, ann, "/skip", {"pair_id": pid, "round": "1", "reason": "the question is unclear"})
        assert status == 409 and "you already voted on this pair" in body["error"]
    assert store.skips() == [] and [v["vote_id"] for v in store.votes()] == ["vote-ann-1"]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_vote_and_a_skip_of_one_pair_are_never_both_stored(kind: str, tmp_path: Path) -> None:
    """An outside attack: a Vote and a Skip sent from two tabs at the same moment were both stored (33 of 80 races):
    the vote path looked for a skip only before taking the pair's lock. Under the lock each refuses the other."""
    store = _store(tmp_path, n=2, kind=kind)
    store.add_annotator("ann", [])
    pairs = [p["id"] for p in store.pairs()]
    store.add_skip("ann", pairs[0], 1, "unclear")
    vote = {"vote_id": "vote-ann-1", "annotator": "ann", "pair_id": pairs[0], "round": 1, "choice": "A",
            "choices": None, "shown_order": "AB", "shown_at": "2026-12-08T00:00:00.000Z",
            "submitted_at": "2026-12-08T00:00:01.000Z", "seconds": 1.0, "comment": None}
    assert store.cast(vote, 3) == "was_skipped"
    assert store.cast({**vote, "vote_id": "vote-ann-2", "pair_id": pairs[1]}, 3) == "stored"
    assert store.add_skip("ann", pairs[1], 1, "unclear") == "conflict"
    assert [v["vote_id"] for v in store.votes()] == ["vote-ann-2"] and store.skips() == [("ann", pairs[0], 1)]
    if kind == "sqlite":  # the race itself, through the server: vote and skip released together
        import threading

        (tmp_path / "race").mkdir()
        store = _store(tmp_path / "race", n=30)
        ann = store.add_annotator("racer", [])
        with serving(store, Rules(target=3, repeat_share=0.0)) as base:
            for i in range(30):
                pid = _field(_page(base, ann), "pair_id")
                gate = threading.Barrier(2)
                calls = [lambda: post_vote(base, ann, {"pair_id": pid, "round": "1", "vote_id": f"vote-race-{i:04d}",
                                                       "choice": "LEFT"}),
                         lambda: _post(base, ann, "/skip", {"pair_id": pid, "round": "1", "reason": "unclear"})]
                threads = [threading.Thread(target=lambda call=call: (gate.wait(), call())) for call in calls]
                [t.start() for t in threads]
                [t.join() for t in threads]
        voted = {v["pair_id"] for v in store.votes() if v["annotator"] == "racer"}
        skipped = {p for a, p, _ in store.skips() if a == "racer"}
        assert len(voted | skipped) == 30 and not voted & skipped


def test_a_comments_line_breaks_count_once_and_a_refusal_page_leads_back(tmp_path: Path) -> None:
    """An outside tester: a browser sends a textarea's line breaks as CRLF; 4,000 characters over 40 lines (what the
    box holds) were refused as 4,038 on a page with no way back, and stored comments kept their CRs."""
    store = _store(tmp_path, n=2)
    ann = store.add_annotator("ann", [])
    with serving(store, Rules(target=3)) as base:
        pid = _field(_page(base, ann), "pair_id")
        crlf = ("x" * 99 + "\r\n") * 39  # 3,900 characters as the box counts them (a line break one), 3,939 as sent
        vote = {"pair_id": pid, "round": "1", "vote_id": "vote-crlf", "choice": "LEFT", "comment": crlf + "x" * 99 + "\ryz"}
        status, body = post_vote(base, ann, vote)
        assert status == 400 and "comment of 4,002 characters" in body["error"]  # a lone CR is one line break too
        assert post_vote(base, ann, {**vote, "comment": crlf + "x" * 98 + "\ry"}) == (200, {"status": "stored"})  # 4,000
        request = urllib.request.Request(f"{base}/vote", method="POST", data=b"round=3", headers={
            "Authorization": f"Bearer {ann}", "Content-Type": "application/x-www-form-urlencoded"})
        with pytest.raises(urllib.error.HTTPError) as caught:  # a page (no JSON asked for): it links back
            urllib.request.urlopen(request)
        assert caught.value.code == 400 and "<a href='/' id='back'>Back to voting</a>" in caught.value.read().decode()
    assert [v["comment"] for v in store.votes()] == [("x" * 99 + "\n") * 39 + "x" * 98 + "\ny"]
