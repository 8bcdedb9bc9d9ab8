"""The viewer's static assets (package data: static/) and its Content-Security-Policy."""

from __future__ import annotations

from importlib import resources

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def asset(name: str) -> str:
    return resources.files("judgebench.publish.viewer").joinpath("static", name).read_text(encoding="utf-8")


def page_html(source: str) -> str:
    """index.html for data read from data/*.js files ("files") or from the local server's JSON ("api")."""
    assert source in ("files", "api")
    return asset("index.html").replace("__SOURCE__", source)


def dumps(value: object) -> str:
    """JSON for the page: ASCII, and <, > and & as \\u escapes, so no text of the data reads as markup even
    where the JSON sits inside a page."""
    import json

    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
