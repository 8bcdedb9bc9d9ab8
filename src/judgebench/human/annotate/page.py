"""The voting page, the admin page and their static script and style, as HTML text.

Safety: every text from the data (question, responses, slice values, names) is HTML-escaped first;
`markdown` then adds only its own tags, without attributes (no links, no images), so nothing in the
data can become markup. The server also sends a Content-Security-Policy allowing only its own
script and style files (no inline script), so even a rendering bug could not run a script.
"""

from __future__ import annotations

import html
import re
from typing import Any

CHOICES = (("LEFT", "Left is better", "1"), ("RIGHT", "Right is better", "2"), ("TIE", "Tie", "3"),
           ("BOTH_BAD", "Both are bad", "4"))
_BULLET = re.compile(r"^\s*[-*+]\s")
_NUMBER = re.compile(r"^\s*\d+[.)]\s")
_INLINE = (
    (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
    (re.compile(r"\*\*(.+?)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])"), r"<em>\1</em>"),
)


def markdown(text: str) -> str:
    """A small, safe Markdown subset: paragraphs, #-headings, - and 1. lists, ``` blocks, `code`, **bold**, *italic*."""
    out: list[str] = []
    blocks = re.split(r"(```.*?(?:```|$))", text, flags=re.S)
    for block in blocks:
        if block.startswith("```"):
            body = block[3:].split("\n", 1)[1] if "\n" in block else ""
            out.append(f"<pre><code>{html.escape(body.removesuffix('```'))}</code></pre>")
            continue
        for para in re.split(r"\n\s*\n", block.strip("\n")):
            if para.strip():
                out.append(_paragraph(para))
    return "\n".join(out)


def _inline(text: str) -> str:
    escaped = html.escape(text)
    for pattern, repl in _INLINE:
        escaped = pattern.sub(repl, escaped)
    return escaped


def _paragraph(para: str) -> str:
    lines = para.strip().splitlines()
    for marker, tag in ((_BULLET, "ul"), (_NUMBER, "ol")):
        if all(marker.match(line) for line in lines):
            items = "".join("<li>" + _inline(marker.sub("", line, count=1)) + "</li>" for line in lines)
            return f"<{tag}>{items}</{tag}>"
    heading = re.match(r"(#{1,6})\s+(.*)", lines[0])
    if heading and len(lines) == 1:
        level = min(len(heading.group(1)) + 2, 6)  # below the page's own headings
        return f"<h{level}>{_inline(heading.group(2))}</h{level}>"
    return "<p>" + "<br>".join(_inline(line) for line in lines) + "</p>"


def _document(title: str, body: str) -> str:
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><link rel='stylesheet' href='/static/vote.css'>"
        "<script src='/static/vote.js' defer></script></head>"
        f"<body>{body}</body></html>"
    )


def vote_page(pair: dict[str, Any], *, round_: int, shown_order: str, vote_id: str, shown_at: str,
              dimensions: list[str], voted: int, left: int, annotator: str) -> str:
    """The page for one pair: question, the two responses in `shown_order`, the choice form."""
    left_text, right_text = (pair["response_a"], pair["response_b"]) if shown_order == "AB" else (pair["response_b"], pair["response_a"])
    hidden = "".join(
        f"<input type='hidden' name='{k}' value='{html.escape(str(v), quote=True)}'>"
        for k, v in (("pair_id", pair["id"]), ("round", round_), ("vote_id", vote_id), ("shown_at", shown_at))
    )
    if dimensions:
        rows = "".join(
            f"<fieldset class='dimension' data-dimension='{html.escape(d, quote=True)}'><legend>{html.escape(d)}</legend>"
            + "".join(f"<label><input type='radio' name='dim:{html.escape(d, quote=True)}' value='{v}' required> {t}</label>"
                      for v, t, _ in CHOICES)
            + "</fieldset>"
            for d in dimensions
        )
        choices = rows + "<button type='submit' id='submit' name='action' value='vote'>Submit [Enter]</button>"
    else:
        choices = "".join(
            f"<button type='submit' id='choice-{v}' name='choice' value='{v}' data-key='{k}'>{t} [{k}]</button>"
            for v, t, k in CHOICES
        )
    repeat = "<p class='note'>You have seen this pair before; judge it afresh.</p>" if round_ == 2 else ""
    body = (
        f"<header><span id='progress'>{html.escape(annotator)}: {voted} voted, {left} left</span>"
        "<span class='keys'>keys: 1 left, 2 right, 3 tie, 4 both bad, s skip</span></header>"
        f"{repeat}<section id='question'><h2>Question</h2>{markdown(pair['question'])}</section>"
        f"<main class='responses'><article id='left'><h2>Response 1 (left)</h2>{markdown(left_text)}</article>"
        f"<article id='right'><h2>Response 2 (right)</h2>{markdown(right_text)}</article></main>"
        f"<form method='post' action='/vote' id='vote-form'>{hidden}"
        "<textarea name='comment' id='comment' placeholder='optional comment' maxlength='4000'></textarea>"
        f"<div class='choices'>{choices}</div></form>"
        f"<form method='post' action='/skip' id='skip-form'>{hidden}<button type='submit' id='skip'>Skip [s]</button></form>"
    )
    return _document("judgebench vote", body)


def message_page(title: str, text: str) -> str:
    return _document(title, f"<main class='message'><h1>{html.escape(title)}</h1><p>{html.escape(text)}</p></main>")


def admin_page(tables: dict[str, list[list[Any]]], rules_text: str) -> str:
    def table(header: list[str], rows: list[list[Any]], table_id: str) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
        return f"<table id='{table_id}'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    body = (
        f"<h1>Annotation progress</h1><p>{html.escape(rules_text)}</p><h2>Annotators</h2>"
        + table(["annotator", "votes", "repeats", "skips"], tables["annotators"], "annotators")
        + "<h2>Slices</h2>"
        + table(["slice", "pairs", "votes", "pairs at target"], tables["slices"], "slices")
    )
    return _document("judgebench annotate admin", body)


SCRIPT = """'use strict';
// Keyboard shortcuts: 1 left, 2 right, 3 tie, 4 both bad, s skip; with dimensions 1-4 answer the
// first unanswered dimension and Enter submits. Keys typed into the comment box are left alone.
document.addEventListener('keydown', function (event) {
  if (event.target && event.target.tagName === 'TEXTAREA') return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === 's') { document.getElementById('skip').click(); return; }
  var values = {'1': 'LEFT', '2': 'RIGHT', '3': 'TIE', '4': 'BOTH_BAD'};
  var value = values[event.key];
  var sets = document.querySelectorAll('fieldset.dimension');
  if (sets.length === 0) {
    if (value) document.getElementById('choice-' + value).click();
    return;
  }
  if (event.key === 'Enter') { event.preventDefault(); document.getElementById('submit').click(); return; }
  if (!value) return;
  for (var i = 0; i < sets.length; i++) {
    if (!sets[i].querySelector('input:checked')) {
      sets[i].querySelector("input[value='" + value + "']").checked = true;
      return;
    }
  }
});
// One submit per page: a second click resends nothing (the server would ignore it anyway: same vote id).
document.addEventListener('submit', function (event) {
  if (event.target.dataset.sent) { event.preventDefault(); return; }
  event.target.dataset.sent = '1';
});
"""

STYLE = """body{font-family:system-ui,sans-serif;margin:1rem 2rem;max-width:110rem}
header{display:flex;justify-content:space-between;color:#555;margin-bottom:1rem}
.responses{display:grid;grid-template-columns:1fr 1fr;gap:1.5rem}
article{border:1px solid #ccc;border-radius:6px;padding:0 1rem;overflow-wrap:anywhere}
pre{white-space:pre-wrap;background:#f4f4f4;padding:.5rem}
textarea{width:100%;height:4rem;margin:1rem 0}
.choices button,#skip,#submit{font-size:1.1rem;margin:.25rem;padding:.5rem 1rem}
fieldset{margin:.25rem 0}.note{color:#a50}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .75rem}
"""
