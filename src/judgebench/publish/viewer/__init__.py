"""`judgebench view`: a run viewer for disagreements, order flips and the judge's reasoning (issue 31).

data.py    runs read for the index (only the fields it needs), filters, counts, confusion, one example on demand
bundle.py  the static, self-contained bundle (`--output-dir`), data split into chunk files under a size cap
serve.py   the local server on 127.0.0.1 (stdlib ThreadingHTTPServer; JSON endpoints; read-only)
page.py    the static assets (static/) and the Content-Security-Policy
"""
