"""``idemlint server`` end to end: a pytest-lsp client drives the real
server process (``python -m idemlint server``, the installed package) over
stdio, as an editor would.

Every wait is for a notification that must come (diagnostics for a URI
that satisfy a condition), with a deadline, never a sleep: the server's
debounce is 0.05 s here.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import sys
import textwrap
from typing import Any, Callable, List, Optional

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from idemlint.engine import lint_source
from idemlint.lsp.text import uri_of

PROJECT = {
    "pyproject.toml": "[tool.idemlint]\n",
    "shop/__init__.py": "",
    "shop/billing.py": """\
        import stripe


        def charge(order_id):
            stripe.PaymentIntent.create(amount=100, currency="eur")
        """,
    "shop/mail.py": """\
        from celery import shared_task
        from django.core.mail import send_mail


        @shared_task
        def send_receipt(order_id):
            send_mail("Receipt", "Thanks", "shop@example.com", ["c@example.com"])
        """,
    "shop/tasks.py": """\
        from celery import shared_task

        from shop import billing
        from shop.mail import send_receipt


        @shared_task
        def finish_order(order_id):
            billing.charge(order_id)
            send_receipt.delay(order_id)
        """,
    "shop/payments.py": """\
        import stripe
        from celery import shared_task


        @shared_task
        def capture(order_id):
            stripe.PaymentIntent.create(amount=100, currency="eur")
        """,
}

# send_receipt claims its work before sending: enqueueing it is no finding.
GUARDED_MAIL = """\
from celery import shared_task
from django.core.cache import cache
from django.core.mail import send_mail


@shared_task
def send_receipt(order_id):
    if not cache.add(f"receipt:{order_id}", 1, timeout=86400):
        return
    send_mail("Receipt", "Thanks", "shop@example.com", ["c@example.com"])
"""

SERVER = [sys.executable, "-m", "idemlint", "server", "--debounce", "0.05"]
DEADLINE = 60.0  # seconds: a loaded CI machine, a cold first analysis


class Client(LanguageClient):
    """pytest-lsp's client, recording every publishDiagnostics in order."""

    published: List[types.PublishDiagnosticsParams]
    registrations: List[types.Registration]


def make_client() -> Client:
    client = Client(converter_factory=default_converter)
    client.published = []
    client.registrations = []

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish(client: Client, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        client.published.append(params)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(client: Client, params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def log_message(client: Client, params: types.LogMessageParams) -> None:
        client.log_messages.append(params)

    @client.feature(types.WINDOW_SHOW_MESSAGE)
    def show_message(client: Client, params: types.ShowMessageParams) -> None:
        client.messages.append(params)

    return client


@pytest.fixture
def project(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "project"
    for name, text in PROJECT.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))
    return root


# No return annotation: pytest-lsp 0.4 passes every annotation to issubclass(),
# which refuses typing's on Python 3.9.
@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def client(lsp_client: Client, project: pathlib.Path):  # type: ignore[no-untyped-def]
    folder = types.WorkspaceFolder(uri=uri_of(str(project)), name="project")
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=folder.uri,
            workspace_folders=[folder],
        )
    )
    yield
    await lsp_client.shutdown_session()


def uri(project: pathlib.Path, name: str) -> str:
    return uri_of(str(project / name))


def open_file(client: Client, project: pathlib.Path, name: str, text: Optional[str] = None) -> str:
    document = uri(project, name)
    content = (project / name).read_text() if text is None else text
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(document, "python", 1, content))
    )
    return document


def change(client: Client, document: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=document),
            [types.TextDocumentContentChangeEvent_Type2(text=text)],
        )
    )


async def published(
    client: Client,
    document: str,
    since: int = 0,
    until: Callable[[List[types.Diagnostic]], bool] = lambda _: True,
) -> List[types.Diagnostic]:
    """The first diagnostics published for ``document`` after the
    ``since``-th notification that satisfy ``until``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE
    while True:
        for params in client.published[since:]:
            if params.uri == document and until(params.diagnostics):
                return params.diagnostics
        if loop.time() > deadline:
            seen = [(p.uri, [d.code for d in p.diagnostics]) for p in client.published[since:]]
            pytest.fail(f"no matching diagnostics for {document} within {DEADLINE} s; published: {seen}")
        await asyncio.sleep(0.02)


def codes(diagnostics: List[types.Diagnostic]) -> List[Any]:
    return sorted((d.range.start.line + 1, d.code) for d in diagnostics)


@pytest.mark.asyncio
async def test_opening_a_task_file_publishes_its_diagnostics(client: Client, project: pathlib.Path) -> None:
    tasks = open_file(client, project, "shop/tasks.py")
    found = await published(client, tasks)
    assert codes(found) == [(10, "IDM013")]
    (enqueue,) = found
    assert enqueue.severity == types.DiagnosticSeverity.Warning
    assert enqueue.source == "idemlint"
    assert enqueue.range == types.Range(types.Position(9, 4), types.Position(9, 32))
    assert enqueue.code_description is not None
    assert enqueue.code_description.href.endswith("/docs/rules/IDM013.md")
    assert "send_receipt" in enqueue.message
    # Related information: where the enqueued task sends the email.
    (related,) = enqueue.related_information or []
    assert related.location.uri == uri(project, "shop/mail.py")
    assert related.location.range.start == types.Position(6, 4)
    assert "sends the email" in related.message

    billing = open_file(client, project, "shop/billing.py")
    (charge,) = await published(client, billing)
    assert charge.code == "IDM002"
    # The task's call that reaches the helper, in the open task file.
    (call,) = charge.related_information or []
    assert call.location.uri == tasks
    assert call.location.range.start == types.Position(8, 4)


@pytest.mark.asyncio
async def test_editing_a_helper_updates_the_open_task_file(client: Client, project: pathlib.Path) -> None:
    tasks = open_file(client, project, "shop/tasks.py")
    mail = open_file(client, project, "shop/mail.py")
    assert codes(await published(client, tasks)) == [(10, "IDM013")]
    assert codes(await published(client, mail)) == [(7, "IDM013")]
    mark = len(client.published)
    # An unsaved edit: the server analyses the buffer, not the file.
    change(client, mail, 2, GUARDED_MAIL)
    assert await published(client, tasks, mark) == []
    assert await published(client, mail, mark) == []
    mark = len(client.published)
    change(client, mail, 3, (project / "shop/mail.py").read_text())
    assert codes(await published(client, tasks, mark)) == [(10, "IDM013")]
    # Closing the buffer: the project reads the file on disk again.
    change(client, mail, 4, GUARDED_MAIL)
    await published(client, tasks, mark, until=lambda found: not found)
    mark = len(client.published)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(mail)))
    assert await published(client, mail, mark) == []
    assert codes(await published(client, tasks, mark)) == [(10, "IDM013")]


@pytest.mark.asyncio
async def test_a_fix_is_a_code_action(client: Client, project: pathlib.Path) -> None:
    payments = open_file(client, project, "shop/payments.py")
    (finding,) = await published(client, payments)
    assert finding.code == "IDM002"
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(payments),
            finding.range,
            types.CodeActionContext(diagnostics=[finding]),
        )
    )
    assert actions is not None
    fix, noqa = actions
    assert isinstance(fix, types.CodeAction) and isinstance(noqa, types.CodeAction)
    assert fix.title == "Pass `idempotency_key` built from the task's `order_id` (unsafe)"
    assert fix.kind == types.CodeActionKind.QuickFix
    assert not fix.is_preferred
    assert fix.diagnostics and fix.diagnostics[0].code == "IDM002"
    assert fix.edit is not None and fix.edit.document_changes is not None
    (document_edit,) = fix.edit.document_changes
    assert isinstance(document_edit, types.TextDocumentEdit)
    assert document_edit.text_document.uri == payments
    assert document_edit.text_document.version == 1
    (edit,) = document_edit.edits
    assert edit.range == types.Range(types.Position(6, 58), types.Position(6, 58))
    assert edit.new_text == ', idempotency_key=f"capture-payment-intent-create-{order_id}"'

    assert noqa.title == "Add `# noqa: IDM002` on line 7"
    assert noqa.edit is not None and noqa.edit.document_changes is not None
    (noqa_edit,) = noqa.edit.document_changes
    assert isinstance(noqa_edit, types.TextDocumentEdit)
    (comment,) = noqa_edit.edits
    assert comment.range == types.Range(types.Position(6, 59), types.Position(6, 59))
    assert comment.new_text == "  # noqa: IDM002"

    # The client applies the fix: the finding is gone.
    text = (project / "shop/payments.py").read_text()
    fixed = apply(text, document_edit.edits)
    assert 'currency="eur", idempotency_key=f"capture-payment-intent-create-{order_id}")' in fixed
    mark = len(client.published)
    change(client, payments, 2, fixed)
    assert await published(client, payments, mark) == []
    # No finding there any more, no action.
    after = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(payments), finding.range, types.CodeActionContext(diagnostics=[])
        )
    )
    assert after == []


def apply(text: str, edits: List[types.TextEdit]) -> str:
    """The client's side: edits applied last first (ASCII text, so characters are UTF-16 units)."""
    lines = text.splitlines(keepends=True)

    def offset(position: types.Position) -> int:
        return sum(len(line) for line in lines[: position.line]) + position.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


@pytest.mark.asyncio
async def test_hover_explains_the_rule(client: Client, project: pathlib.Path) -> None:
    tasks = open_file(client, project, "shop/tasks.py")
    await published(client, tasks)
    answer = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(tasks), types.Position(9, 10))
    )
    assert answer is not None and isinstance(answer.contents, types.MarkupContent)
    assert answer.contents.kind == types.MarkupKind.Markdown
    assert answer.contents.value.startswith("**IDM013** `unguarded-side-effect`")
    assert "**Why it matters.**" in answer.contents.value and "**Fix.**" in answer.contents.value
    assert "/docs/rules/IDM013.md" in answer.contents.value
    assert answer.range == types.Range(types.Position(9, 4), types.Position(9, 32))
    nothing = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(tasks), types.Position(0, 0))
    )
    assert nothing is None
    # Saving publishes again, even when nothing changed.
    mark = len(client.published)
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(tasks)))
    assert codes(await published(client, tasks, mark)) == [(10, "IDM013")]


@pytest.mark.asyncio
async def test_a_broken_file_is_one_diagnostic_and_the_server_goes_on(
    client: Client, project: pathlib.Path
) -> None:
    broken = "from celery import shared_task\n\n\n@shared_task\ndef refund(order_id:\n    pass\n"
    (project / "shop" / "refunds.py").write_text(broken)
    refunds = open_file(client, project, "shop/refunds.py")
    tasks = open_file(client, project, "shop/tasks.py")
    (problem,) = await published(client, refunds)
    assert problem.code == "E999"
    assert problem.severity == types.DiagnosticSeverity.Error
    # Where the CLI puts it (which depends on the running Python's parser).
    (expected,) = lint_source(broken).problems
    assert problem.range.start == types.Position(expected.line - 1, expected.column - 1)
    # To the end of that line.
    assert problem.range.end == types.Position(expected.line - 1, len(broken.splitlines()[expected.line - 1]))
    assert "SyntaxError" in problem.message
    # The rest of the project is still analysed, the server still answers.
    assert codes(await published(client, tasks)) == [(10, "IDM013")]
    answer = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(tasks), types.Position(9, 10))
    )
    assert answer is not None
    # Fixed in the buffer: the diagnostic goes.
    mark = len(client.published)
    change(client, refunds, 2, broken.replace("order_id:", "order_id):"))
    assert await published(client, refunds, mark) == []


@pytest.mark.asyncio
async def test_the_workspace_configuration_and_its_changes_count(client: Client, project: pathlib.Path) -> None:
    tasks = open_file(client, project, "shop/tasks.py")
    assert codes(await published(client, tasks)) == [(10, "IDM013")]
    # The server asked to be told of changes to pyproject.toml (and Python files).
    await wait_until(lambda: client.registrations)
    (registration,) = client.registrations
    assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    globs = [watcher["globPattern"] for watcher in registration.register_options["watchers"]]
    assert "**/pyproject.toml" in globs
    pyproject = project / "pyproject.toml"
    pyproject.write_text('[tool.idemlint]\nignore = ["IDM013"]\n')
    mark = len(client.published)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [types.FileEvent(uri=uri_of(str(pyproject)), type=types.FileChangeType.Changed)]
        )
    )
    assert await published(client, tasks, mark) == []
    # A configuration that cannot be used: one line on each file, as in flake8.
    pyproject.write_text('[tool.idemlint]\nselect = "IDM"\n')
    mark = len(client.published)
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri_of(str(pyproject)))))
    (problem,) = await published(client, tasks, mark)
    assert problem.code == "IDM901"
    assert "'select' in [tool.idemlint] must be a list of strings" in problem.message
    await wait_until(lambda: client.messages)
    assert "invalid idemlint configuration" in client.messages[0].message


async def wait_until(condition: Callable[[], Any]) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE
    while not condition():
        if loop.time() > deadline:
            pytest.fail("condition not met in time")
        await asyncio.sleep(0.02)


@pytest.mark.asyncio
async def test_a_new_file_not_saved_yet_is_analysed(client: Client, project: pathlib.Path) -> None:
    text = textwrap.dedent(
        """\
        import stripe
        from celery import shared_task


        @shared_task
        def refund(order_id):
            stripe.Refund.create(payment_intent="pi_1")
        """
    )
    new = open_file(client, project, "shop/refunds.py", text)
    assert codes(await published(client, new)) == [(7, "IDM002")]
    assert not (project / "shop" / "refunds.py").exists()


@pytest.mark.asyncio
async def test_bad_input_gets_answers_not_tracebacks(client: Client, project: pathlib.Path) -> None:
    # A directory is no document (the file system's root would be walked whole).
    for directory in ("file:///", uri_of(str(project / "shop"))):
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(directory, "python", 1, "import os\n"))
        )
    tasks = open_file(client, project, "shop/tasks.py")
    await published(client, tasks)
    assert [p.uri for p in client.published] == [tasks]
    # Documents the server cannot analyse are left alone.
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem("untitled:Untitled-1", "python", 1, "x = ("))
    )
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri_of("/nonexistent/\udce9.py"), "python", 1, "\x00"))
    )
    # Requests about unknown documents and positions far outside the text.
    for document in ("untitled:Untitled-1", uri_of(str(project / "nothing.py")), tasks):
        answer = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(document), types.Position(10**6, 10**6))
        )
        assert answer is None
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(document),
                types.Range(types.Position(10**6, 0), types.Position(0, 10**6)),
                types.CodeActionContext(diagnostics=[]),
            )
        )
        assert actions == []
    # An unknown request is an error response of one line, not a traceback.
    with pytest.raises(Exception) as raised:
        await client.protocol.send_request_async("idemlint/unknown", {"x": 1})
    assert "Traceback" not in str(raised.value)
    # A message that is not JSON at all.
    assert client.protocol.transport is not None
    client.protocol.transport.write(b"Content-Length: 7\r\n\r\n{nope!}")
    answer = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(tasks), types.Position(9, 10))
    )
    assert answer is not None


@pytest.mark.asyncio
async def test_the_server_exits_cleanly(project: pathlib.Path) -> None:
    client = await ClientServerConfig(server_command=SERVER, client_factory=make_client).start()
    assert isinstance(client, Client)
    folder = types.WorkspaceFolder(uri=uri_of(str(project)), name="project")
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("neovim"), root_uri=folder.uri, workspace_folders=[folder]
        )
    )
    tasks = open_file(client, project, "shop/tasks.py")
    assert codes(await published(client, tasks)) == [(10, "IDM013")]
    process = client._server
    assert process is not None
    pid = process.pid
    await client.shutdown_session()
    assert process.returncode == 0
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    await client.stop()
    if os.path.isdir("/proc"):
        assert children_of(pid) == []


def children_of(pid: int) -> List[int]:
    """Processes whose parent is ``pid`` (none, once it has exited)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found
