"""core/text: `visible`'s fast path for printable text changes nothing, and look-alike names are grouped."""

from __future__ import annotations

from judgebench.core.text import look_alike_groups, reads_as_reserved, skeleton, spelled_out, visible


def test_visible_is_the_same_for_every_code_point_and_for_mixed_text():
    """The fast path returns printable text as it is (arena.html's 10,000 cells each went through the loop): every
    code point alone, and text beside printable characters, gives what the loop gives, which a line break added at
    the end forces (a line break becomes one space, and nothing else depends on its neighbours)."""
    for point in range(0x110000):
        char = chr(point)
        assert visible(char) + " " == visible(char + "\n"), hex(point)
    for text in ("plain ascii", "café – naïve", "a\u202eb", "tab\there", "nbsp\u00a0x", "zero\u200bwidth", "\x1b[31m",
                 "line\u2028sep", "emoji \U0001f600", "private \ue000", "", " "):
        assert visible(text) + " " == visible(text + "\n"), repr(text)
    assert visible("a\x1bb") == "a\\x1bb" and visible("plain") == "plain" and visible("x\u202e") == "x\\u202e"


def test_look_alike_names_are_grouped_and_spelled_out():
    names = ["caf\u00e9", "cafe\u0301", "GPT-4", "gpt-4", "gpt\u200b-4", "claude", "\u0441laude", "other"]
    assert look_alike_groups(names) == [["GPT-4", "gpt-4", "gpt\u200b-4"], ["cafe\u0301", "caf\u00e9"],
                                        ["claude", "\u0441laude"]]
    assert look_alike_groups(["a", "b", "a"]) == []  # one name twice is one name
    # an outside attack: a trailing or doubled space, a Unicode hyphen, a word joiner, a variation selector, a
    # tag character and bidi isolates were not caught (l and I are still told apart)
    assert look_alike_groups(["m1", "m1 ", "delta  pro", "delta pro", "atlas-7b", "atlas\u20107b", "a\u2061",
                              "a", "x\ufe0f", "x", "t\U000e0041", "t", "\u2066q\u2069", "q", "llama", "IIama"]) == [
        ["a", "a\u2061"], ["atlas-7b", "atlas\u20107b"], ["delta  pro", "delta pro"], ["m1", "m1 "],
        ["q", "\u2066q\u2069"], ["t", "t\U000e0041"], ["x", "x\ufe0f"]]
    assert [spelled_out(n) for n in ("cafe\u0301", "caf\u00e9", "a\x00b", "plain")] == [
        "cafe\\u0301", "caf\\xe9", "a\\x00b", "plain"]


def test_latin_small_capitals_read_as_their_letters():
    """`ʙuiltin/x` reads as `Builtin/x` on a page: a small capital stays itself when lower-cased, so it was no
    look-alike of anything (found attacking submit's reserved-prefix check)."""
    assert skeleton("\u0299uiltin/x") == "builtin/x"
    assert skeleton("\u1d18\u1d00\u0274\u1d07\u029f/judge") == "panel/judge"
    assert look_alike_groups(["\u0280\u1d07\u1d18\u029f\u1d00\u028f", "replay", "Replay"]) == [
        ["Replay", "replay", "\u0280\u1d07\u1d18\u029f\u1d00\u028f"]]


def test_reserved_prefixes_are_read_through_look_alikes_and_nothing_else():
    for judge_id in ("builtin/x", "Builtin-x", "bui1tin/x", "buiItin/x", "bui|tin/x", "pane1/x", "rep1ay.v2",
                     "\u0299uiltin/x", "builti\u0578/x", "\u0253uiltin/x", " panel/x"):
        assert reads_as_reserved(judge_id), judge_id
    for judge_id in ("builtin_x", "mylab/builtin", "panels/x", "replays", "bu1ld/x", "pane/x", "openai/gpt-4o",
                     "lab/bui1tin", "panelist/x"):
        assert not reads_as_reserved(judge_id), judge_id
