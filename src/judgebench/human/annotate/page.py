"""The voting page, the admin page and their static script and style, as HTML text.

Rendering (docs/design/decisions.md, "The voting server on a web stack"): responses are Markdown
rendered on the server by markdown-it-py (CommonMark + GFM tables and strikethrough; raw HTML is
not enabled, so HTML in a response is shown as text), LaTeX between $...$ / $$...$$ (and \\(...\\),
\\[...\\]) is turned into MathML by latex2mathml (Chromium and Firefox draw MathML natively: no
KaTeX script, font or CDN), SciArena-style citations ([1] markers and a trailing numbered reference
list) become superscripts and a numbered list, links and images are shown as their text (a voting
page never leads elsewhere), and the result passes nh3 (ammonia) with a fixed allow-list of tags and
attributes. The server also sends a Content-Security-Policy allowing only its own script and style
files (no inline script or style), so even a rendering bug could not run a script.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Any

from judgebench.core.text import html_text


def _side(wide: str, narrow: str) -> str:
    """A side's name as the layout shows it: side by side (left, right), or stacked on a narrow screen (top, bottom;
    a walkthrough: the stacked answers were still called left and right). CSS shows one of the two."""
    return f"<span class='wide'>{wide}</span><span class='narrow'>{narrow}</span>"


CHOICES = (("LEFT", f"{_side('Left', 'Top')} is better", "1"), ("RIGHT", f"{_side('Right', 'Bottom')} is better", "2"),
           ("TIE", "Tie", "3"),
           ("BOTH_BAD", "Both are bad", "4"))
SKIP_REASONS = ("", "I cannot judge this topic", "the question is unclear", "both responses are unreadable",
                "something else (see comment)")
MATH_TAGS = {"math", "mrow", "mi", "mo", "mn", "ms", "mtext", "mspace", "msup", "msub", "msubsup", "mfrac", "msqrt",
             "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "mstyle", "mpadded", "mphantom",
             "menclose", "semantics", "annotation", "merror"}
TAGS = {"p", "br", "hr", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code", "em", "strong", "s",
        "del", "table", "thead", "tbody", "tr", "th", "td", "sup", "span", "div", "section", *MATH_TAGS}
ATTRIBUTES = {"ol": {"start", "class"}, "math": {"display"}, "span": {"class"}, "div": {"class"}, "sup": {"class"},
              "code": {"class"}, "section": {"class"}, "mi": {"mathvariant"}, "mn": {"mathvariant"},
              "mtext": {"mathvariant"}, "mo": {"stretchy", "fence", "separator", "lspace", "rspace", "mathvariant"},
              "mstyle": {"displaystyle", "scriptlevel"}, "mspace": {"width"}, "mtd": {"columnalign"},
              "mtable": {"columnalign", "rowspacing", "columnspacing"}, "menclose": {"notation"},
              "mfrac": {"linethickness"}, "annotation": {"encoding"}, "th": {"align"}, "td": {"align"}}
_REFERENCE = re.compile(r"^\s*\[(\d{1,3})\]\s+(.+)$")
_MARKER = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\](?!\()")


_ALIGNED = re.compile(r"\s*\\begin\{(aligned|align\*?|split|gathered|gather\*?|eqnarray\*?)\}(.*)\\end\{\1\}\s*", re.S)
_ROW_SPACING = re.compile(r"\*?(?:\s*\[\s*-?\d*\.?\d+\s*(?:pt|em|ex|mm|cm|in|mu|bp|pc|sp)\s*\])?")  # after a `\\`
_UNNUMBERED = re.compile(r"\\(?:nonumber|notag)(?![A-Za-z])|\\label\{[^{}]*\}")
_EQUATION_TAG = re.compile(r"\\tag\*?\{([^{}]*)\}")
_NOT_MATHML = re.compile(r"<(?!/?(?:" + "|".join(sorted(MATH_TAGS - {"math"}, key=len, reverse=True)) + r")[\s/>])")
_SPACE_WIDTH = re.compile(r'(<mspace width=")(\d*\.?\d+)([a-z]*)"')
_ROMAN_LETTER = re.compile(r"(?<!\\)((?:\\\\)*)\\mathrm\s*\{\s*([A-Za-z])\s*\}")  # (after an even run of backslashes)
_LT, _GT = "\ue000", "\ue001"  # `<` and `>` of the LaTeX source while latex2mathml reads it (private-use characters)
_MAX_SPACE = {"em": 4.0, "ex": 8.0, "mu": 72.0, "pt": 40.0, "px": 60.0, "mm": 15.0, "cm": 1.5, "in": 0.6}


def _math(latex: str, display: bool) -> str:
    written = latex.replace("<", _LT).replace(">", _GT)  # (their own characters: text-mode `<` came out raw)
    try:
        import latex2mathml.converter

        convert = latex2mathml.converter.convert
        read = _ROMAN_LETTER.sub(r"\1{\\mathrm \2}", written)  # (`\mathrm{d}` came out as an italic d)
        aligned = _ALIGNED.fullmatch(read)
        if aligned is None:
            return _safe_mathml(str(convert(read, display="block" if display else "inline")))
        rows = _rows(aligned.group(2))
        if rows is None:  # braces or environments that do not balance: the source says it best (as written)
            return _source(written)
        return f'<math display="{"block" if display else "inline"}"><mtable>{_table(rows, convert)}</mtable></math>'
    except Exception:  # an expression latex2mathml cannot read is shown as its source
        return _source(written)


def _source(latex: str) -> str:
    """A formula shown as its LaTeX source."""
    return f"<code class='math-source'>{html.escape(latex.replace(_LT, '<').replace(_GT, '>'))}</code>"


def _safe_mathml(mathml: str) -> str:
    r"""latex2mathml's output with its text kept text: `\text{<div class=...>}` came out as the page's own markup
    (an attack drew the page's notice inside an answer); only MathML tags stay tags, inside the one `math`. Spaces
    past a few em (`\hspace{300em}` pushed the answer out of its pane) are cut to that."""
    head, _, rest = mathml.partition(">")
    inner = rest[: -len("</math>")] if rest.endswith("</math>") else rest
    inner = re.sub(f"<mi>([{_LT}{_GT}])</mi>", r"<mo>\1</mo>", inner)  # a relation in math mode
    inner = _SPACE_WIDTH.sub(_capped_space, _NOT_MATHML.sub("&lt;", inner))
    return f"{head}>{inner.replace(_LT, '&lt;').replace(_GT, '&gt;')}</math>"


def _capped_space(match: re.Match[str]) -> str:
    """An `mspace` width at most _MAX_SPACE of its unit (one em when the unit is none of those)."""
    value, unit = float(match.group(2)), match.group(3)
    cap = _MAX_SPACE.get(unit)
    return f'{match.group(1)}{min(value, cap):g}{unit}"' if cap is not None else f'{match.group(1)}1em"'


def _rows(body: str) -> list[list[str]] | None:
    r"""An aligned block's body split into rows at `\\` (its spacing `\\[2pt]` dropped) and cells at `&`: only at the
    top level (outside braces and nested environments, `\&` and `\\` inside `\text{}` kept); `\label`,
    `\nonumber` and `\notag` dropped and a `\tag{x}` put in a last cell `(x)`. None when braces or environments do
    not balance (the block is then shown as its source). One pass over the text."""
    rows: list[list[str]] = []
    cells: list[str] = []
    cell: list[str] = []
    depth = environments = i = 0
    text = _UNNUMBERED.sub("", body)
    while i < len(text):
        char = text[i]
        if char == "\\":
            if text.startswith("\\begin{", i) or text.startswith("\\end{", i):
                environments += 1 if text[i + 1] == "b" else -1
                if environments < 0:
                    return None
            if text.startswith("\\\\", i) and not depth and not environments:
                rows.append([*cells, "".join(cell)])
                cells, cell = [], []
                i = _ROW_SPACING.match(text, i + 2).end()  # type: ignore[union-attr]
                continue
            cell.append(text[i:i + 2])
            i += 2
            continue
        if char in "{}":
            depth += 1 if char == "{" else -1
            if depth < 0:
                return None
        if char == "&" and not depth and not environments:
            cells.append("".join(cell))
            cell = []
        else:
            cell.append(char)
        i += 1
    if depth or environments:
        return None
    rows.append([*cells, "".join(cell)])
    return [_tagged(row) for row in rows if any(part.strip() for part in row)]


def _tagged(row: list[str]) -> list[str]:
    r"""A row whose cells hold `\tag{x}`: the tag taken out into a last cell `(x)`."""
    tags = [tag for part in row for tag in _EQUATION_TAG.findall(part)]
    cells = [_EQUATION_TAG.sub("", part) for part in row]
    return cells + [f"\\text{{({tags[0]})}}"] if tags else cells


def _table(rows: list[list[str]], convert: Any) -> str:
    """Rows of cells as MathML table rows, each cell converted alone (latex2mathml gave an aligned block's `&` as a
    letter and its line breaks as `linebreak` spaces no browser draws: two equations ran together on one line).
    Cells alternate right and left alignment as LaTeX's do (Chromium ignores `columnalign`: the style sheet aligns
    them)."""
    side = ("right", "left")
    out = []
    for row in rows:
        cells = []
        for i, part in enumerate(row):
            inner = ""
            if part.strip():
                inner = re.sub(r"^<math[^>]*>|</math>$", "", _safe_mathml(str(convert(part, display="inline"))))
            cells.append(f'<mtd columnalign="{side[i % 2]}">{inner}</mtd>')
        out.append("<mtr>" + "".join(cells) + "</mtr>")
    return "".join(out)


_AMOUNT = re.compile(r"\d+(?:[.,]\d+)*(?![\w$]|[.,]\d)")  # a number ending at a space, a punctuation mark or the end


def _escaped(src: str, at: int) -> bool:
    """Whether the character at `at` follows an odd run of backslashes."""
    run = at
    while run > 0 and src[run - 1] == "\\":
        run -= 1
    return (at - run) % 2 == 1


def _dollar_math(state: Any, silent: bool) -> bool:
    r"""Inline `$...$` (and `$$...$$` in text), Pandoc's rule: an opening `$` is followed by a non-space, its closing
    `$` (the next one not escaped) is preceded by a non-space and not followed by a digit. A `$` after a digit opens
    nothing, and a `$` before an amount (`$5`, `$10.`, `$5,000`, `$3.50`: a number, then a space, a punctuation mark
    or the end) is currency unless the formula it would open holds no space (`$5^2$`): `It costs $5 and $10. The
    energy is $E=mc^2$` drew "10. The energy is " as math. A formula never holds a backtick, so an inline code span
    is never swallowed by it."""
    src, start = state.src, state.pos
    if src[start] != "$" or _escaped(src, start) or start and src[start - 1].isdigit():
        return False
    double = src.startswith("$$", start)
    if double:
        end = start + 2
        while (end := src.find("$$", end)) != -1 and _escaped(src, end):
            end += 1
        content = src[start + 2:end]
    else:
        end = src.find("$", start + 1)
        while end != -1 and _escaped(src, end):
            end = src.find("$", end + 1)
        content = src[start + 1:end]
        if end == -1 or not content or content[0].isspace() or content[-1].isspace() or src[end + 1:end + 2].isdigit():
            return False
        if _AMOUNT.match(src, start + 1) and any(char.isspace() for char in content):
            return False
    if end == -1 or not content.strip() or "`" in content:
        return False
    if not silent:
        token = state.push("math_inline_double" if double else "math_inline", "math", 0)
        token.content, token.markup = content, "$$" if double else "$"
    state.pos = end + (2 if double else 1)
    return True


def _paren_math(state: Any, silent: bool) -> bool:
    r"""Inline `\(...\)`: a formula, whatever its spaces or digits (a backslash before the `\` makes it no delimiter)."""
    src, start = state.src, state.pos
    # text -> a start after which no `\)` closes (thousands of unclosed `\(` are searched once, not each to the end)
    unclosed = state.env.setdefault("unclosed_paren", {})
    if not src.startswith("\\(", start) or start and src[start - 1] == "\\" or start >= unclosed.get(src, len(src)):
        return False
    end = src.find("\\)", start + 2)
    while end != -1 and src[end - 1] == "\\":
        end = src.find("\\)", end + 1)
    if end == -1:
        unclosed[src] = start
    if end == -1 or end == start + 2:
        return False
    if not silent:
        token = state.push("math_inline", "math", 0)
        token.content, token.markup = src[start + 2:end], "\\("
    state.pos = end + 2
    return True


@lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(["table", "strikethrough"])
    md.use(dollarmath_plugin, allow_labels=False, allow_space=True, allow_digits=False, double_inline=True,
           renderer=lambda content, options: _math(content, bool(options.get("display_mode"))))

    def as_text(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:  # links and images: their text
        # only (a method of the renderer: markdown-it binds a render rule to it)
        token = tokens[idx]
        if token.type == "image":
            return html.escape(f"[image: {token.content}]")
        return ""

    def display_in_text(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:  # `$$x$$` inside a
        # paragraph: a span (the plugin's div ended the paragraph there; its text after the formula lost the paragraph)
        return f"<span class='math display'>{_math(tokens[idx].content.strip(), True)}</span>"

    md.inline.ruler.at("math_inline", _dollar_math)  # the plugin's own rule paired `$10. ... $` as math
    md.inline.ruler.before("escape", "math_paren", _paren_math)
    md.add_render_rule("math_inline_double", display_in_text)
    md.add_render_rule("link_open", as_text)
    md.add_render_rule("link_close", as_text)
    md.add_render_rule("image", as_text)
    return md


def _citations(text: str) -> tuple[str, list[tuple[str, str]]]:
    """A trailing list of '[n] reference' lines split off the text (SciArena's citation layout)."""
    lines = text.rstrip().splitlines()
    refs: list[tuple[str, str]] = []
    while lines and (m := _REFERENCE.match(lines[-1])):
        refs.insert(0, (m.group(1), m.group(2)))
        lines.pop()
    while lines and lines[-1].strip().lower().rstrip(":") in ("references", "**references**", "## references",
                                                              "### references", "sources", ""):
        lines.pop()
    return ("\n".join(lines), refs) if refs else (text, [])


def markdown(text: str) -> str:
    """Markdown -> safe HTML: CommonMark, tables, strikethrough, math as MathML, citations; sanitised by nh3."""
    import nh3

    body, refs = _citations(text)
    latex = _one_display_per_line(_tex_delimiters(body))
    rendered = _parser().render(latex)
    # headings sit below the page's own
    rendered = re.sub(r"<(/?)h([1-6])>", lambda m: f"<{m.group(1)}h{min(int(m.group(2)) + 2, 6)}>", rendered)
    if refs:  # (after the shift: the list's heading had become an h6, the page's smallest)
        rendered = _cite_markers(rendered)
        items = "".join(f"<li value='{n}'>{_inline_md(t)}</li>" for n, t in refs)
        rendered += f"<section class='references'><h5>References</h5><ol>{items}</ol></section>"
    clean = nh3.clean(rendered, tags=TAGS, attributes={**ATTRIBUTES, "li": {"value"}}, link_rel=None, strip_comments=True)
    clean = re.sub(r">\n(?=<)", ">", clean)  # no newline between tags (text inside <pre> is escaped: untouched)
    # quotes in text escaped as well, as html.escape does: the output is safe even inside an attribute
    return "".join(part if part.startswith("<") else part.replace('"', "&quot;").replace("'", "&#x27;")
                   for part in re.split(r"(<[^>]*>)", clean))


_TEX_DELIMITER = re.compile(r"(?<!\\)\\([\[\]])")


def _tex_delimiters(text: str) -> str:
    r"""`\[...\]` as `$$...$$`, in one pass (a regex per pair took seconds on thousands of unclosed `\[`); a `\[`
    right after a backslash is a row break's spacing (`\\[2pt]`), not math. (`\(...\)` is an inline rule,
    `_paren_math`: as `$...$` it met the dollar rules meant for currency.)"""
    out: list[str] = []
    last, opened = 0, None
    for match in _TEX_DELIMITER.finditer(text):
        char = match.group(1)
        if opened is None and char == "[":
            opened = match
        elif opened is not None and char == "]" and match.start() > opened.end():
            out += [text[last:opened.start()], "$$", text[opened.end():match.start()], "$$"]
            last, opened = match.end(), None
    return "".join(out) + text[last:]


_CONTAINER = re.compile(r"(?:(?: {0,3}(?:[-+*]|\d{1,9}[.)]|>))(?: +|$))*")  # list and quote markers before a line's text
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")


def _one_display_per_line(text: str) -> str:
    """A line whose text (after its list or quote markers and indentation) opens with `$$` and ends with `$$` but
    closes its first formula earlier (`$$a$$ text $$b$$`) read as a paragraph with its formulas in it: the block rule
    had read from the first `$$` to the line's last as one formula. An invisible word joiner before the text keeps
    it from starting a block (a line break after the first formula had made `$$a$$ + $$b$$` a list and
    `$$x$$ > $$y$$` a quotation); the markers and indentation stay, so the line stays in its list. Fenced code
    blocks keep their lines (fences as CommonMark closes them: the same character, at least as many)."""
    lines, fence = text.split("\n"), None
    for i, line in enumerate(lines):
        head = _CONTAINER.match(line).end()  # type: ignore[union-attr]
        body = line[head:]
        opening = _FENCE.fullmatch(body)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence) and not opening.group(2).strip():
                fence = None
            continue
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            fence = opening.group(1)
            continue
        formula = body.lstrip(" ")
        end, close = len(formula.rstrip()) - 2, formula.find("$$", 2)
        if len(body) - len(formula) <= 3 and formula.startswith("$$") and formula.rstrip().endswith("$$") and 2 < close < end:
            lines[i] = f"{line[:len(line) - len(formula)]}\u2060{formula}"
    return "\n".join(lines)


def _cite_markers(rendered: str) -> str:
    """`[1]` markers in the rendered text as superscripts: in text only, never inside a tag (a code block's
    `class` attribute had taken one) nor in code, where `[1]` is what the answer wrote."""
    out, in_code = [], 0
    for part in re.split(r"(<[^>]*>)", rendered):
        if part.startswith("<"):
            tag = re.match(r"</?(\w+)", part)
            if tag and tag.group(1) in ("code", "pre"):
                in_code += -1 if part.startswith("</") else 1
            out.append(part)
        else:
            out.append(part if in_code else _MARKER.sub(lambda m: f"<sup class='cite'>[{m.group(1)}]</sup>", part))
    return "".join(out)


def _inline_md(text: str) -> str:
    return str(_parser().renderInline(text))


def _document(title: str, body: str, *, refresh: int | None = None, body_class: str = "") -> str:
    meta = f"<meta http-equiv='refresh' content='{refresh}'>" if refresh else ""
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"{meta}<title>{html_text(title)}</title><link rel='stylesheet' href='/static/vote.css'>"
        "<script src='/static/vote.js' defer></script></head>"
        f"<body{f' class={body_class}' if body_class else ''}>{body}</body></html>"
    )


def _hidden(fields: dict[str, Any]) -> str:
    return "".join(f"<input type='hidden' name='{k}' value='{html.escape(str(v), quote=True)}'>" for k, v in fields.items())


def _undo_form(undo: str | None, csrf: str | None, seconds: float | None = None) -> str:
    """The Undo button; `seconds`: what is left of its window (the script removes it then: it stayed, and was
    refused)."""
    if not undo or csrf is None:
        return ""
    left = "" if seconds is None else f" data-seconds='{max(seconds, 0.0):.1f}'"
    return (f"<form method='post' action='/undo' id='undo-form'{left}>{_hidden({'vote_id': undo, 'csrf': csrf})}"
            "<button type='submit' id='undo'>Undo last vote [u]</button></form>")


def vote_page(pair: dict[str, Any], *, pid: str, round_: int, shown_order: str, vote_id: str, csrf: str,
              dimensions: list[str], voted: int, left: int, annotator: str, undo: str | None = None,
              guidelines: str | None = None, first_visit: bool = False, undone: bool = False, full: bool = False,
              undo_s: float | None = None) -> str:
    """The page for one pair: question, the two responses in `shown_order`, the choice form. The pair
    appears only under its opaque id `pid`; the time shown is kept by the server."""
    left_text, right_text = (pair["response_a"], pair["response_b"]) if shown_order == "AB" else (pair["response_b"], pair["response_a"])
    hidden = _hidden({"pair_id": pid, "round": round_, "vote_id": vote_id, "csrf": csrf})
    if dimensions:
        rows = "".join(
            f"<fieldset class='dimension' data-dimension='{html.escape(d, quote=True)}'><legend>{html_text(d)}</legend>"
            + "".join(f"<label><input type='radio' name='dim:{html.escape(d, quote=True)}' value='{v}' required> {t}</label>"
                      for v, t, _ in CHOICES)
            + "</fieldset>"
            for d in dimensions
        )
        choices = (f"<div class='dimensions'>{rows}</div>"
                   "<button type='submit' id='submit' name='action' value='vote'>Submit [Enter]</button>")
        keys = "keys: 1-4 answer the highlighted dimension, Backspace goes back, Enter submits, s skip, u undo"
    else:
        choices = "".join(
            f"<button type='submit' id='choice-{v}' name='choice' value='{v}' data-key='{k}'>{t} [{k}]</button>"
            for v, t, k in CHOICES
        )
        keys = f"keys: 1 {_side('left', 'top')}, 2 {_side('right', 'bottom')}, 3 tie, 4 both bad, s skip, u undo"
    notes = ""
    if round_ == 2:
        notes += "<p class='note'>You have seen this pair before; judge it afresh.</p>"
    if undone:
        notes += "<p class='note' id='undone'>Your last vote was taken back: vote on this pair again.</p>"
    if full:
        notes += ("<p class='note' id='full'>The previous pair received all the votes it needed while you read it; "
                  "your vote on it was not stored. Here is the next one.</p>")
    panel = ""
    if guidelines is not None:
        panel = (f"<details id='guidelines'{' open' if first_visit else ''}><summary>Guidelines [g]</summary>"
                 f"<div class='guidelines-body'>{markdown(guidelines)}</div></details>")
    reasons = "".join(f"<option value='{html.escape(r, quote=True)}'>{html.escape(r or 'skip reason (optional)')}</option>"
                      for r in SKIP_REASONS)
    done = voted + left
    body = (
        "<header class='top'>"
        f"<span id='progress'>{html_text(annotator)}: {voted} voted, {left} left</span>"
        f"<progress id='progress-bar' max='{max(done, 1)}' value='{voted}'></progress>"
        f"<span class='keys'>{keys}</span>"
        f"<form method='post' action='/logout' id='logout-form'>{_hidden({'csrf': csrf})}"
        "<button type='submit' id='logout'>Sign out</button></form></header>"
        f"{notes}{panel}"
        f"<section id='question'><h2>Question</h2>{markdown(pair['question'])}</section>"
        f"<main class='responses'><article id='left'><h2>Response 1 ({_side('left', 'top')})</h2>{markdown(left_text)}"
        f"</article><article id='right'><h2>Response 2 ({_side('right', 'bottom')})</h2>{markdown(right_text)}</article></main>"
        "<footer class='bar'>"
        f"<form method='post' action='/vote' id='vote-form'>{hidden}"
        f"<div class='choices'>{choices}</div>"
        "<textarea name='comment' id='comment' placeholder='optional comment' maxlength='4000'></textarea></form>"
        f"<div class='side'><form method='post' action='/skip' id='skip-form'>{hidden}"
        f"<select name='reason' id='skip-reason'>{reasons}</select><button type='submit' id='skip'>Skip [s]</button></form>"
        f"{_undo_form(undo, csrf, undo_s)}</div></footer>"
    )
    return _document("judgebench vote", body, body_class="vote")


BACK = "<p><a href='/' id='back'>Back to voting</a></p>"


def message_page(title: str, text: str, *, undo: str | None = None, csrf: str | None = None, back: bool = False,
                 undo_s: float | None = None) -> str:
    """A page saying one thing; `back`: with a link to the voting page (a refused vote's page was a dead end)."""
    return _document(title, f"<main class='message'><h1>{html_text(title)}</h1><p>{html_text(text)}</p>"
                            f"{_undo_form(undo, csrf, undo_s)}{BACK if back else ''}</main>")


def guidelines_page(text: str) -> str:
    return _document("Guidelines", f"<main class='message guidelines-body'><h1>Guidelines</h1>{markdown(text)}{BACK}</main>")


def admin_page(tables: dict[str, list[list[Any]]], rules_text: str) -> str:
    from judgebench.human.annotate.quality import QUALITY_HEADER

    def table(header: list[str], rows: list[list[Any]], table_id: str) -> str:
        head = "".join(f"<th>{html_text(h)}</th>" for h in header)
        body = "".join(
            f"<tr{' class=flagged' if table_id == 'quality' and row[-1] != 'ok' else ''}>"
            + "".join(f"<td>{html_text(c)}</td>" for c in row) + "</tr>" for row in rows)
        return f"<table id='{table_id}'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    body = (
        f"<main class='admin'><h1>Annotation progress</h1><p id='rules'>{html_text(rules_text)}</p><h2>Annotators</h2>"
        + table(["annotator", "votes", "repeats", "skips"], tables["annotators"], "annotators")
        + "<h2>Slices</h2>"
        + table(["slice", "pairs", "votes", "pairs at target"], tables["slices"], "slices")
        + "<h2>Quality</h2><p>Refreshed every 30 s. Gold pairs, repeats and shared pairs feed the figures; "
          "a flag names the threshold an annotator crossed.</p>"
        + table(QUALITY_HEADER, tables.get("quality", []), "quality")
        + "</main>"
    )
    return _document("judgebench annotate admin", body, refresh=30)


SCRIPT = """'use strict';
// Keyboard: 1 left, 2 right, 3 tie, 4 both bad, s skip, u undo, g guidelines. With dimensions, 1-4
// answer the highlighted dimension and move on, Backspace goes back one, Enter submits. Keys typed
// into the comment box are left alone; in the skip reason list the arrows choose, Esc leaves it and
// the page's keys still work (`s` had picked "something else" instead of skipping).
function dims() { return document.querySelectorAll('fieldset.dimension'); }
function mark() {
  var sets = dims(), done = false;
  for (var i = 0; i < sets.length; i++) {
    var current = !done && !sets[i].querySelector('input:checked');
    sets[i].classList.toggle('current', current);
    if (current) done = true;
  }
}
document.addEventListener('DOMContentLoaded', mark);
document.addEventListener('change', mark);
document.addEventListener('keydown', function (event) {
  var target = event.target, tag = target && target.tagName;
  if (tag === 'TEXTAREA' || tag === 'INPUT' && target.type === 'text') return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (tag === 'SELECT') {
    if (event.key === 'Escape') { target.blur(); return; }
    var keys = dims().length ? /^([1-4sug]|Enter|Backspace)$/ : /^[1-4sug]$/;
    if (!keys.test(event.key)) return;
    event.preventDefault();  // (no type-ahead: the reason chosen stays)
  }
  var click = function (id) { var el = document.getElementById(id); if (el) el.click(); };
  if (event.key === 's') { click('skip'); return; }
  if (event.key === 'u') { click('undo'); return; }
  if (event.key === 'g') { var g = document.getElementById('guidelines'); if (g) g.open = !g.open; return; }
  var values = {'1': 'LEFT', '2': 'RIGHT', '3': 'TIE', '4': 'BOTH_BAD'};
  var value = values[event.key];
  var sets = dims();
  if (sets.length === 0) {
    if (value) click('choice-' + value);
    return;
  }
  if (event.key === 'Enter') { event.preventDefault(); click('submit'); return; }
  if (event.key === 'Backspace') {
    event.preventDefault();
    for (var j = sets.length - 1; j >= 0; j--) {
      var checked = sets[j].querySelector('input:checked');
      if (checked) { checked.checked = false; break; }
    }
    mark();
    return;
  }
  if (!value) return;
  for (var i = 0; i < sets.length; i++) {
    if (!sets[i].querySelector('input:checked')) {
      sets[i].querySelector("input[value='" + value + "']").checked = true;
      break;
    }
  }
  mark();
});
// One submit per page: a second click resends nothing (the server would ignore it anyway: same vote id).
document.addEventListener('submit', function (event) {
  if (event.target.dataset.sent) { event.preventDefault(); return; }
  event.target.dataset.sent = '1';
});
// A page shown again by the browser's Back (its back-forward cache keeps the script's state) is not sent yet:
// after Back from a refused vote its keys and buttons did nothing until a reload.
window.addEventListener('pageshow', function () {
  var forms = document.querySelectorAll('form');
  for (var i = 0; i < forms.length; i++) delete forms[i].dataset.sent;
  expireUndo();
});
// Undo is offered for what is left of its window (a second early, for the trip to the server), then removed:
// the button stayed, and the server refused it. Checked again when Back shows the page.
var undoEnds = null;
function expireUndo() {
  var form = document.getElementById('undo-form');
  if (form && undoEnds !== null && Date.now() >= undoEnds) form.remove();
}
document.addEventListener('DOMContentLoaded', function () {
  var form = document.getElementById('undo-form');
  if (!form || !form.dataset.seconds) return;
  var ms = parseFloat(form.dataset.seconds) * 1000 - 1000;
  undoEnds = Date.now() + ms;
  setTimeout(expireUndo, Math.max(ms, 0));
});
"""

STYLE = """*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;margin:0;padding:0 1.5rem;line-height:1.45}
body.vote{height:100vh;display:flex;flex-direction:column;overflow:hidden;padding:0 1rem}
header.top{position:sticky;top:0;z-index:2;background:#fff;display:flex;gap:1rem;align-items:center;
  justify-content:space-between;color:#555;padding:.4rem 0;border-bottom:1px solid #ddd;flex:none}
#progress-bar{flex:1;max-width:20rem}
#logout-form{margin:0}#logout{font-size:.85rem;padding:.15rem .5rem}
.note{color:#a50;margin:.25rem 0;flex:none}
details#guidelines{border:1px solid #ccc;border-radius:6px;padding:.25rem 1rem;margin:.4rem 0;background:#fffbea;
  flex:none;max-height:40vh;overflow:auto}
#question{flex:none;max-height:22vh;overflow:auto}
#question h2{font-size:1.1rem;margin:.4rem 0}
.responses{display:grid;grid-template-columns:1fr 1fr;gap:1rem;flex:1;min-height:0}
article{border:1px solid #ccc;border-radius:6px;padding:0 1rem;overflow:auto;min-height:0;overflow-wrap:anywhere}
article h2{position:sticky;top:0;background:#fff;margin:0;padding:.4rem 0;font-size:1.05rem;border-bottom:1px solid #eee}
footer.bar{flex:none;z-index:2;background:#fafafa;border-top:1px solid #ccc;padding:.4rem 0;
  display:flex;gap:.75rem;align-items:flex-start}
footer.bar #vote-form{flex:1;display:flex;flex-wrap:wrap;gap:.25rem .75rem;align-items:center}
.choices{display:flex;flex-wrap:wrap;gap:.25rem;align-items:center}
#comment{flex:1;min-width:12rem;height:2.2rem;margin:0}
.side{display:flex;flex-direction:column;gap:.25rem}
pre{white-space:pre-wrap;background:#f4f4f4;padding:.5rem}
blockquote{border-left:3px solid #ccc;margin-left:0;padding-left:1rem;color:#444}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .75rem}
.choices button,#skip,#submit,#undo{font-size:1rem;padding:.35rem .8rem}
.dimensions{display:flex;flex-wrap:wrap;gap:.25rem}
fieldset{margin:0;padding:.1rem .4rem;border:1px solid #ccc;font-size:.9rem}
fieldset legend{font-weight:600}fieldset label{margin-right:.35rem;white-space:nowrap}
fieldset.current{border:2px solid #06c;background:#eef5ff}
sup.cite{color:#06c}.references{font-size:.9em;border-top:1px solid #eee}
math[display=block]{margin:.5rem 0}
.references h5{font-size:.95rem;margin:.6rem 0 .2rem}
article :is(p,li,td,th,code){overflow-wrap:anywhere}
:is(article,#question,.guidelines-body) :is(p,li,td,th,blockquote,h3,h4,h5,h6){unicode-bidi:plaintext;text-align:start}
[mathvariant=bold]{font-weight:bold;font-style:normal}[mathvariant=bold-italic]{font-weight:bold;font-style:italic}
[mathvariant=italic]{font-style:italic}[mathvariant=sans-serif]{font-family:sans-serif;font-style:normal}
[mathvariant=monospace]{font-family:monospace;font-style:normal}[mathvariant=double-struck]{font-weight:bold}
mtd[columnalign=right]{display:table-cell;text-align:-webkit-right;text-align:-moz-right;padding-right:0}
mtd[columnalign=right]+mtd[columnalign=left]{padding-left:0}mtd[columnalign=left]{text-align:left}
tr.flagged td{background:#fde8e8}
main.message,main.admin{max-width:70rem;margin:1rem auto}
.narrow{display:none}
@media (max-width:800px){
  .wide{display:none}.narrow{display:inline}
  body.vote{height:auto;overflow:visible;display:block;padding:0 .5rem}
  .responses{grid-template-columns:1fr}
  #question{max-height:none}
  footer.bar{position:sticky;bottom:0;flex-direction:column}
  .keys{display:none}
}
"""


def asset(name: str) -> tuple[str, str] | None:
    """A static file of the page: (text, media type)."""
    return {"vote.js": (SCRIPT, "text/javascript; charset=utf-8"), "vote.css": (STYLE, "text/css; charset=utf-8")}.get(name)
