"""The Language Server: the protocol (pygls), when to analyse, what to publish.

Analyses run one at a time in a process of their own
(:mod:`idemlint.lsp.process`), waited for in a thread, so that the server
keeps answering (hovers, code actions, the next edit, ``shutdown``) while
one runs, whatever it analyses:

- opening or saving a document analyses at once; an edit, a document
  closed, a file changed on disk (``workspace/didChangeWatchedFiles``, for
  ``*.py`` and ``pyproject.toml``) or a workspace folder added after
  ``debounce`` seconds without another;
- a request that comes while an analysis runs starts another right after it;
- every open Python document is analysed each time, with the texts the
  editor holds (:mod:`idemlint.lsp.analysis`), and its diagnostics are
  published when they changed, or when it was just opened, edited or
  saved (with the version analysed: the client knows its edit was seen);
  a document edited since the analysis began waits for the next one.

The configuration is read again for every analysis, so a saved
``pyproject.toml`` counts from the next one on (and saving it starts one).

Nothing the client or the checked code sends ends the server or reaches the
client as a traceback: every handler answers with nothing rather than
raise, an error response carries one line, and pygls's own log is reduced
to one line a record on stderr (the traceback with ``IDEMLINT_DEBUG=1``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import sys
import threading
import time
from functools import wraps
from typing import Any, Callable, Dict, List, Optional, Set, Tuple, TypeVar

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.server import LanguageServer

from idemlint import __version__
from idemlint.escape import visible
from idemlint.lsp.actions import code_actions
from idemlint.lsp.analysis import Buffer, Checked, Report
from idemlint.lsp.convert import Places, diagnostics, hover
from idemlint.lsp.process import AnalysisProcess
from idemlint.lsp.text import UTF16, path_of

DEFAULT_DEBOUNCE = 0.25
_WATCHED = ("**/*.py", "**/pyproject.toml")

Result = TypeVar("Result")
_log = logging.getLogger("idemlint.lsp")


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, whose error responses say what failed in one line
    and never carry a traceback (pygls puts one in an internal error's data)."""

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        if error is not None:
            first = str(getattr(error, "message", "") or "internal error").splitlines()[0]
            error = types.ResponseError(code=getattr(error, "code", -32603), message=visible(first[:200]))
        super()._send_response(msg_id, result, error)


class IdemlintServer(LanguageServer):
    def __init__(self, debounce: float) -> None:
        super().__init__(
            "idemlint",
            __version__,
            protocol_cls=_Protocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Full,
        )
        self.debounce = debounce
        self.state = _State(self)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls shows the user a message for an error outside a request: log it, in one line."""
        _log.warning("error in the protocol: %s", _one_line(error))


def _one_line(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}"
    return visible(" ".join(text.split())[:300])


class _Analyst:
    """One thread that waits for analyses, one at a time, and hands each
    outcome (a result or the exception) back to the event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._queue: "queue.SimpleQueue[Tuple[Callable[[], Any], Callable[[Any], None]]]" = queue.SimpleQueue()
        # A daemon: an exit while an analysis runs does not wait for it
        # (the cache is written atomically, so at worst an entry is missing).
        self._thread = threading.Thread(target=self._run, name="idemlint-analysis", daemon=True)
        self._thread.start()

    def submit(self, work: Callable[[], Result], done: Callable[[Any], None]) -> None:
        self._queue.put((work, done))

    def _run(self) -> None:
        while True:
            work, done = self._queue.get()
            outcome: Any
            try:
                outcome = work()
            except Exception as error:
                outcome = error
            try:
                self._loop.call_soon_threadsafe(done, outcome)
            except RuntimeError:  # the loop is closed: the server is exiting
                return


class _State:
    """The server's view of the editor: what was analysed and published."""

    def __init__(self, server: IdemlintServer) -> None:
        self.server = server
        self.shut_down = False
        self.checked: Dict[str, Checked] = {}
        self.published: Dict[str, List[types.Diagnostic]] = {}
        self.must_publish: Set[str] = set()
        self.shown: Set[str] = set()
        self._timer: Optional[asyncio.TimerHandle] = None
        self._running = False
        self._again = False
        self._analyst: Optional[_Analyst] = None
        self._process = AnalysisProcess()

    # Which documents, which folders, which units

    def encoding(self) -> str:
        capabilities = self.server.lsp.server_capabilities
        encoding = getattr(capabilities, "position_encoding", None) if capabilities else None
        return str(getattr(encoding, "value", encoding) or UTF16)

    def buffers(self) -> List[Buffer]:
        found = []
        for uri, document in list(self.server.workspace.text_documents.items()):
            path = path_of(uri)
            if path is None or path.endswith(".pyi") or os.path.isdir(path):
                continue  # not a file (a directory would be walked whole)
            if document.language_id != "python" and not path.endswith(".py"):
                continue
            found.append(Buffer(uri, path, document.source, document.version))
        return found

    def roots(self) -> List[str]:
        workspace = self.server.workspace
        uris = [folder.uri for folder in workspace.folders.values()]
        if workspace.root_uri:
            uris.append(workspace.root_uri)
        # A folder that is the file system's root or the home directory is
        # no project: its files are checked one by one, not every file under it.
        too_wide = {os.sep, os.path.expanduser("~")}
        paths = (path_of(uri) for uri in uris)
        return sorted({path for path in paths if path is not None and path not in too_wide})

    def current(self, uri: str) -> Optional[Checked]:
        """The analysis of the document as the client holds it now (None
        when it changed since, or was never analysed)."""
        checked = self.checked.get(uri)
        document = self.server.workspace.text_documents.get(uri)
        if checked is None or document is None or document.source != checked.buffer.text:
            return None
        return checked

    # When to analyse

    def request(self, delay: float, publish: Optional[str] = None) -> None:
        """Analyse after ``delay`` seconds without another request; publish
        ``publish``'s diagnostics then even if they did not change."""
        if publish is not None:
            self.must_publish.add(publish)
        loop = self.server.loop
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_later(delay, self._start)

    def _start(self) -> None:
        self._timer = None
        if self._running:
            self._again = True
            return
        buffers = self.buffers()
        if not buffers:
            return
        if self._analyst is None:
            self._analyst = _Analyst(self.server.loop)
        self._running = True
        roots, encoding, process = self.roots(), self.encoding(), self._process
        self._analyst.submit(lambda: _analysed(process, buffers, roots, encoding), self._finished)

    def stop(self) -> None:
        """No analysis from now on: the one under way ends at once."""
        self.shut_down = True
        self._process.stop()

    def _finished(self, outcome: Any) -> None:
        self._running = False
        try:
            if isinstance(outcome, BaseException):
                if self.shut_down:
                    return  # ended by the shutdown
                _log.warning("analysis failed: %s", _one_line(outcome))
                self.server.show_message_log(f"idemlint: analysis failed: {_one_line(outcome)}")
            else:
                self._publish(*outcome)
        finally:
            if self._again:
                self._again = False
                self._start()

    def _publish(self, report: Report, found: Dict[str, List[types.Diagnostic]], seconds: float) -> None:
        self.server.show_message_log(f"idemlint: analysed {len(report.checked)} open files in {seconds:.2f} s")
        for message in report.messages:
            if message not in self.shown:
                self.shown.add(message)
                self.server.show_message(f"idemlint: {visible(message)}", types.MessageType.Warning)
        for uri, checked in report.checked.items():
            document = self.server.workspace.text_documents.get(uri)
            if document is None or document.source != checked.buffer.text:
                continue  # closed, or edited since: the next analysis has it
            self.checked[uri] = checked
            diagnostics = found[uri]
            if uri in self.must_publish or self.published.get(uri) != diagnostics:
                self.must_publish.discard(uri)
                self.published[uri] = diagnostics
                self.server.lsp.notify(
                    types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                    types.PublishDiagnosticsParams(uri, diagnostics, checked.buffer.version),
                )

    def forget(self, uri: str) -> None:
        """A closed document: its diagnostics cleared."""
        self.checked.pop(uri, None)
        self.must_publish.discard(uri)
        if self.published.pop(uri, None) is not None:
            self.server.lsp.notify(
                types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, types.PublishDiagnosticsParams(uri, [])
            )


def _analysed(
    process: AnalysisProcess, buffers: List[Buffer], roots: List[str], encoding: str
) -> Tuple[Report, Dict[str, List[types.Diagnostic]], float]:
    """Run in the analysis thread: the report and each buffer's diagnostics."""
    started = time.monotonic()
    report = process.analyse(buffers, roots)
    places = Places(buffers, encoding)
    found = {uri: diagnostics(checked, places) for uri, checked in report.checked.items()}
    return report, found, time.monotonic() - started


Handler = TypeVar("Handler", bound=Callable[..., Any])


def _guarded(fallback: Any = None) -> Callable[[Handler], Handler]:
    """A handler that logs one line and answers ``fallback`` instead of raising."""

    def decorate(handler: Handler) -> Handler:
        @wraps(handler)
        def guarded(*arguments: Any) -> Any:
            try:
                return handler(*arguments)
            except Exception as error:
                _log.warning("%s failed: %s", handler.__name__, _one_line(error))
                if os.environ.get("IDEMLINT_DEBUG"):
                    _log.warning("traceback", exc_info=True)
                return fallback

        return guarded  # type: ignore[return-value]

    return decorate


def build(debounce: float = DEFAULT_DEBOUNCE) -> IdemlintServer:
    """The server, its handlers registered."""
    server = IdemlintServer(debounce)
    state = server.state

    @server.feature(types.INITIALIZED)
    @_guarded()
    def initialized(ls: IdemlintServer, params: types.InitializedParams) -> None:
        workspace = ls.client_capabilities.workspace
        watching = workspace.did_change_watched_files if workspace else None
        if watching is not None and watching.dynamic_registration:
            watchers = [types.FileSystemWatcher(glob_pattern=glob) for glob in _WATCHED]
            options = types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers)
            registration = types.Registration(
                id="idemlint-watched-files",
                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=options,
            )
            ls.register_capability(types.RegistrationParams(registrations=[registration]))

    @server.feature(types.SHUTDOWN)
    @_guarded()
    def shutdown(ls: IdemlintServer, params: Any) -> None:
        state.stop()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @_guarded()
    def did_open(ls: IdemlintServer, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        state.published.pop(uri, None)
        state.request(0, publish=uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @_guarded()
    def did_change(ls: IdemlintServer, params: types.DidChangeTextDocumentParams) -> None:
        state.request(ls.debounce, publish=params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    @_guarded()
    def did_save(ls: IdemlintServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        state.request(0, publish=uri if uri in ls.workspace.text_documents else None)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @_guarded()
    def did_close(ls: IdemlintServer, params: types.DidCloseTextDocumentParams) -> None:
        state.forget(params.text_document.uri)
        state.request(ls.debounce)  # the others now read its file from disk

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @_guarded()
    def watched_files(ls: IdemlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        state.request(ls.debounce)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    @_guarded()
    def folders(ls: IdemlintServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        state.request(ls.debounce)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    @_guarded(fallback=[])
    def code_action(ls: IdemlintServer, params: types.CodeActionParams) -> List[types.CodeAction]:
        checked = state.current(params.text_document.uri)
        if checked is None:
            return []
        workspace = ls.client_capabilities.workspace
        edit = workspace.workspace_edit if workspace else None
        versioned = bool(edit and edit.document_changes)
        places = Places(state.buffers(), state.encoding())
        return code_actions(checked, params.range, params.context, places, versioned)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @_guarded()
    def on_hover(ls: IdemlintServer, params: types.HoverParams) -> Optional[types.Hover]:
        checked = state.current(params.text_document.uri)
        if checked is None:
            return None
        text_document = ls.client_capabilities.text_document
        hovering = text_document.hover if text_document else None
        formats = (hovering.content_format if hovering else None) or [types.MarkupKind.PlainText]
        markdown = types.MarkupKind.Markdown in formats
        return hover(checked, params.position, state.encoding(), markdown)

    return server


class _OneLine(logging.Formatter):
    """A log record as one line: pygls puts tracebacks in its messages too."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage().splitlines()[0] if record.getMessage() else ""
        line = visible(f"{record.name}: {message}"[:500])
        if record.exc_info and os.environ.get("IDEMLINT_DEBUG"):
            line += "\n" + self.formatException(record.exc_info)
        return line


def _quiet_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    for name in ("pygls", "idemlint", "asyncio"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.propagate = False
        logger.setLevel(logging.DEBUG if os.environ.get("IDEMLINT_DEBUG") else logging.WARNING)


def serve(debounce: float = DEFAULT_DEBOUNCE) -> int:
    """Serve on stdin and stdout until the client says ``exit`` or goes
    away; 0 after a ``shutdown`` request, 1 otherwise (as LSP asks)."""
    _quiet_logging()
    server = build(debounce)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing printed by accident can break the protocol
    try:
        server.start_io(stdin, stdout)  # type: ignore[arg-type]
    finally:
        shut_down = server.state.shut_down
        server.state.stop()
    return 0 if shut_down else 1
