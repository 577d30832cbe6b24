"""The language server's conversions, without a server: positions in every
encoding, URIs, where a ``# noqa`` goes, code actions and hovers."""

from __future__ import annotations

import io
import os
import pytest

pytest.importorskip("lsprotocol")

from lsprotocol import types

from idemlint.findings import Finding, Related
from idemlint.fixes import SAFE, UNSAFE, Edit, Fix, fixed_text
from idemlint.lsp.actions import _Comments, code_actions
from idemlint.lsp.analysis import Buffer, Checked, root_of
from idemlint.lsp.convert import Places, diagnostics, hover
from idemlint.lsp.text import UTF8, UTF16, UTF32, from_lsp, lines_of, path_of, to_lsp, uri_of
from idemlint.noqa import NoqaMap


def test_lines_end_where_python_ends_them() -> None:
    # Not at a form feed or a Unicode line separator, as str.splitlines would.
    assert lines_of("a\fb\u2028c\r\nd\re\nf") == ["a\fb\u2028c\r\n", "d\r", "e\n", "f"]


@pytest.mark.parametrize("encoding, character", [(UTF16, 7), (UTF8, 9), (UTF32, 6)])
def test_columns_are_counted_in_the_agreed_units(encoding: str, character: int) -> None:
    lines = lines_of("x = '😀é' + y\n")
    # idemlint's column 7 (1-based characters): after `x = '😀`, whose emoji is
    # two UTF-16 units and four UTF-8 bytes.
    assert to_lsp(lines, 1, 7, encoding) == (0, character)
    assert from_lsp(lines, 0, character, encoding) == (1, 7)


def test_positions_are_clamped_to_the_text() -> None:
    lines = lines_of("ab\ncd")
    assert to_lsp(lines, 1, 99, UTF16) == (0, 2)
    assert to_lsp(lines, 9, 1, UTF16) == (1, 2)  # past the last line, which has no end
    assert to_lsp(lines_of("ab\n"), 9, 1, UTF16) == (1, 0)
    assert to_lsp([], 1, 1, UTF16) == (0, 0)
    assert from_lsp(lines, 0, 99, UTF16) == (1, 3)
    assert from_lsp(lines, 99, 0, UTF16) == (3, 1)
    assert from_lsp(lines, -1, -1, UTF16) == (1, 1)


def test_file_uris_round_trip_any_name() -> None:
    for path in ("/tmp/a b/#c%.py", "/tmp/caf\udce9.py", "/tmp/é.py"):
        assert path_of(uri_of(path)) == path
    assert uri_of("/tmp/a b.py") == "file:///tmp/a%20b.py"
    assert path_of("file://localhost/tmp/x.py") == "/tmp/x.py"
    for other in ("untitled:Untitled-1", "file://server/share/x.py", "file:relative.py", "http://x/y.py", "file:///a%00b"):
        assert path_of(other) is None


def test_a_file_belongs_to_the_innermost_folder() -> None:
    roots = ["/w", "/w/inner", "/wide"]
    assert root_of("/w/inner/a.py", roots) == "/w/inner"
    assert root_of("/w/a.py", roots) == "/w"
    assert root_of("/wider/a.py", roots) is None


# Each case: the text, the line of the finding, the text with the comment.
NOQA_CASES = [
    ("send(x)\n", 1, "send(x)  # noqa: IDM013\n"),
    ("send(x)   \t\n", 1, "send(x)  # noqa: IDM013\n"),
    ("send(x)  # noqa: E501\n", 1, "send(x)  # noqa: E501, IDM013\n"),
    ("send(x)  # NOQA:E501,W1 why\n", 1, "send(x)  # NOQA:E501,W1, IDM013 why\n"),
    ("send(x)  # noqa: idm013\n", 1, "send(x)  # noqa: idm013, IDM013\n"),
    ("send(x)  # type: ignore\n", 1, "send(x)  # type: ignore  # noqa: IDM013\n"),
    ("send('''a\nb''')\nz = 1\n", 1, "send('''a\nb''')  # noqa: IDM013\nz = 1\n"),
    ("send(x, \\\n     y)\n", 1, "send(x, \\\n     y)  # noqa: IDM013\n"),
    ("send(\n    x,\n)\n", 1, "send(  # noqa: IDM013\n    x,\n)\n"),
    ("send(x)\r\n", 1, "send(x)  # noqa: IDM013\r\n"),
    ("send(x)", 1, "send(x)  # noqa: IDM013"),
    ("a = 1\nsend(f'''{x}\n''')\n", 2, "a = 1\nsend(f'''{x}\n''')  # noqa: IDM013\n"),
]


@pytest.mark.parametrize("text, line, expected", NOQA_CASES)
def test_noqa_goes_where_idemlint_and_flake8_read_it(text: str, line: int, expected: str) -> None:
    lines = lines_of(text)
    edit = _Comments(text, lines).noqa(line, "IDM013")
    assert edit is not None
    after = fixed_text(text, [Fix("noqa", SAFE, (edit,))])
    assert after == expected
    assert NoqaMap(io.StringIO(after, newline="").readlines()).suppressed(line, "IDM013")


def test_no_noqa_where_one_already_hides_everything_or_the_text_cannot_be_read() -> None:
    text = "send(x)  # noqa\n"
    assert _Comments(text, lines_of(text)).noqa(1, "IDM013") is None
    text = "send(x)  # noqa: IDM013\n"
    assert _Comments(text, lines_of(text)).noqa(1, "IDM013") is None
    # Python cannot tokenize it: a plain line still gets one, a line with a
    # string or a comment does not.
    text = "send(x)\ny = (\n"
    assert _Comments(text, lines_of(text)).noqa(1, "IDM013") == Edit(1, 8, 1, 8, "  # noqa: IDM013")
    text = "send('#')\ny = (\n"
    assert _Comments(text, lines_of(text)).noqa(1, "IDM013") is None
    assert _Comments(text, lines_of(text)).noqa(7, "IDM013") is None


PATH = os.path.abspath("shop/tasks.py")
TEXT = "import stripe\n\ndef f(order_id):\n    x = '😀'; stripe.Charge.create(amount=1)\n"


def finding(suggestion: Fix) -> Finding:
    return Finding(
        PATH, 4, 15, "IDM002", 4, 42, "missing-idempotency-key", "`stripe.Charge.create()` \x1b[31m", "why", "fix",
        "f", related=(Related(PATH, 3, 1, "task `f`\u202e"),), suggestion=suggestion,
    )


def checked(suggestion: Fix) -> Checked:
    return Checked(Buffer("file:///shop/tasks.py", PATH, TEXT, 7), (finding(suggestion),))


SAFE_FIX = Fix("Pass a key", SAFE, (Edit(4, 41, 4, 41, ", idempotency_key=k"),))


def test_a_diagnostic_in_utf16_units_with_its_text_escaped() -> None:
    (diagnostic,) = diagnostics(checked(SAFE_FIX), Places([checked(SAFE_FIX).buffer], UTF16))
    # The emoji before the call is two UTF-16 units.
    assert diagnostic.range == types.Range(types.Position(3, 15), types.Position(3, 42))
    assert diagnostic.message == "`stripe.Charge.create()` \\x1b[31m"
    (related,) = diagnostic.related_information or []
    assert related.message == "task `f`\\u202e"
    assert related.location.uri == "file:///shop/tasks.py"  # the open buffer's own URI


def test_code_actions_prefer_a_safe_fix_and_edit_the_analysed_version() -> None:
    where = types.Range(types.Position(3, 20), types.Position(3, 20))
    context = types.CodeActionContext(diagnostics=[])
    places = Places([], UTF16)
    fix, noqa = code_actions(checked(SAFE_FIX), where, context, places, versioned=True)
    assert (fix.title, fix.is_preferred) == ("Pass a key", True)
    assert fix.edit is not None and fix.edit.document_changes is not None
    (change,) = fix.edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.version == 7
    assert change.edits[0].range.start == types.Position(3, 41)
    assert noqa.title == "Add `# noqa: IDM002` on line 4"
    unsafe = Fix("Pass a key", UNSAFE, SAFE_FIX.edits)
    fix, _ = code_actions(checked(unsafe), where, context, places, versioned=False)
    assert (fix.title, fix.is_preferred) == ("Pass a key (unsafe)", False)
    assert fix.edit is not None and fix.edit.changes is not None
    assert list(fix.edit.changes) == ["file:///shop/tasks.py"]
    # Elsewhere, or for another kind of action: nothing.
    assert code_actions(checked(unsafe), types.Range(types.Position(0, 0), types.Position(1, 0)), context, places, True) == []
    refactor = types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.Refactor])
    assert code_actions(checked(unsafe), where, refactor, places, True) == []


def test_hover_shows_the_rule_in_markdown_or_plain_text() -> None:
    inside = types.Position(3, 30)
    shown = hover(checked(SAFE_FIX), inside, UTF16, markdown=True)
    assert shown is not None and isinstance(shown.contents, types.MarkupContent)
    assert shown.contents.value.startswith("**IDM002** `missing-idempotency-key`")
    plain = hover(checked(SAFE_FIX), inside, UTF16, markdown=False)
    assert plain is not None and isinstance(plain.contents, types.MarkupContent)
    assert plain.contents.kind == types.MarkupKind.PlainText
    assert "**" not in plain.contents.value
    assert hover(checked(SAFE_FIX), types.Position(3, 2), UTF16, markdown=True) is None
