"""Issue 27 item 6: a server that echoes the request back inside a 200 answer. Every secret the run knows (the
environment's key, `--judge-args api_key`, a header value, a `?token=` value, a key-like api_base path
segment, a `passphrase` argument) must be absent from every file the run, the cache, score, report and the
HF export write."""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from judgebench.cli.main import main
from judgebench.core.secrets import is_secret_name, redact_url

ENV_KEY = "sk-envsecretAAAA1111bbbb2222"
ARG_KEY = "sk-argsecretCCCC3333dddd4444"
HEADER = "hdrsecret-EEEE5555ffff6666"
TOKEN = "toksecretGGGG7777hhhh8888"
PATH_KEY = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
PASS = "passsecretIIII9999jjjj0000"
SECRETS = (ENV_KEY, ARG_KEY, HEADER, TOKEN, PATH_KEY, PASS)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


ENCODED = (_b64(ENV_KEY), _b64(HEADER).rstrip("="))  # what a reply may echo instead of the plain value


class Echo(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        echoed = json.dumps({"path": self.path, "headers": dict(self.headers), "body": body.decode()[:200]})
        answer = f"[[A]] I received: {echoed} and the key {ENV_KEY}, as base64 {_b64(ENV_KEY)}, {_b64(HEADER).rstrip('=')}"
        self.answer(answer, f"echo-{ARG_KEY}")

    def answer(self, content: str, model: str) -> None:
        reply = {"id": "x", "object": "chat.completion", "created": 0, "model": model,
                 "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
                 "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def echo_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def leaks(folder: Path) -> list[tuple[str, str]]:
    found = []
    for path in folder.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            found += [(str(path), s) for s in (*SECRETS, *ENCODED) if s.encode() in data]
    return found


def test_echoed_secrets_never_reach_disk(tmp_path, echo_server, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    run = tmp_path / "run"
    api_base = f"{echo_server}/v1/{PATH_KEY}?token={TOKEN}"
    args = f"api_base={api_base},api_key={ARG_KEY},extra_headers.X-Custom={HEADER},passphrase={PASS}"
    code = main(["run", "--tasks", "sciarena_eval", "--judge", "openai/gpt-4o-mini", "--judge-args", args, "--demo",
                 "--limit", "3", "--output-path", str(run), "--cache-dir", str(tmp_path / "cache"), "--quiet"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert main(["score", str(run)]) == 0
    assert main(["report", str(run)]) == 0
    assert main(["export", str(run), "--output", str(tmp_path / "hf")]) == 0
    out2 = capsys.readouterr()
    assert not [s for s in (*SECRETS, *ENCODED) if s in out.out + out.err + out2.out + out2.err]
    samples = (run / "samples.jsonl").read_text()
    assert "[[A]] I received" in samples  # the answers are kept, scrubbed
    assert leaks(tmp_path) == []


def test_secret_names_and_key_like_path_segments():
    for name in ("passphrase", "session", "bearer", "jwt", "pat", "connection_string", "connectionString", "db_dsn"):
        assert is_secret_name(name), name
    for name in ("temperature", "max_tokens", "api_base", "patience"):
        assert not is_secret_name(name), name
    assert PATH_KEY not in redact_url(f"http://h/v1/{PATH_KEY}/chat")
    kept = "https://x/openai/deployments/gpt-4o-mini-2024-07-18/chat/completions"
    assert redact_url(kept) == kept


class WholeBodyEcho(Echo):
    """Echoes the whole request body as the server got it: JSON text, its strings escaped (`\\"`, `\\\\`, `\\u00e9`)."""

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0))).decode().replace("[[", "((")  # one verdict
        self.answer(f"[[A]] {self.path} {body}", "m")


NESTED = "SECRETnest1aaaBBB"
SHAPED = "sk-shapedCCCC3333dddd"
QUOTED = 'SECq"pw123\\zQQ'
ACCENTED = "SECRETpw\u00e9123RR"
SPACED = "pw123 SECRETss"


@pytest.mark.parametrize("transport", ["openai", "litellm"])
def test_nested_and_escaped_secrets_a_server_echoes_never_reach_disk(tmp_path, transport, capsys):
    # an outside attack: a nested secret (extra_body={"api_key": ...}), a credential-shaped `user`, and secrets the
    # server echoed JSON-escaped (a quote, a backslash, an accent) or with `+` for a space were written in clear
    server = ThreadingHTTPServer(("127.0.0.1", 0), WholeBodyEcho)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        # a query string on the litellm transport is refused (litellm puts the path after it): openai's only
        query = f"?sig={SPACED.replace(' ', '%20')}" if transport == "openai" else ""
        base = f"http://127.0.0.1:{server.server_address[1]}/v1{query}"
        args = (f'api_base={base},api_key=x,transport={transport},extra_body={{"api_key": "{NESTED}"}},'
                f"user={SHAPED},client_secret={QUOTED},db_password={ACCENTED}")
        run = tmp_path / "run"
        code = main(["run", "--tasks", "sciarena_eval", "--judge", "openai/m", "--judge-args", args, "--demo",
                     "--limit", "2", "--output-path", str(run), "--cache-dir", str(tmp_path / "cache"), "--quiet"])
        out = capsys.readouterr()
    finally:
        server.shutdown()
    assert code == 0, out.err
    samples = (run / "samples.jsonl").read_text(encoding="utf-8")
    assert "[[A]] /v1" in samples  # the echo is kept, scrubbed
    escaped = [json.dumps(s)[1:-1] for s in (QUOTED, ACCENTED)]
    spaced = (SPACED, SPACED.replace(" ", "+"), SPACED.replace(" ", "%20")) if query else ()
    forms = (NESTED, SHAPED, QUOTED, ACCENTED, *escaped, *spaced)
    written = [(str(p), s) for p in tmp_path.rglob("*") if p.is_file() for s in forms
               if s.encode() in p.read_bytes() or json.dumps(s).encode() in p.read_bytes()]
    assert written == [] and not [s for s in forms if s in out.out + out.err]
