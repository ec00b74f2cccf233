"""The one language server class: state shared by the features, nothing protocol-specific.

Heavy modules (the pipeline, fastembed, Qdrant) are imported by :mod:`.loading` when
the index is first loaded, after ``initialized``, so ``initialize`` answers at once.
"""

import asyncio
import contextlib
import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from lsprotocol import types
from pygls.exceptions import FeatureNotificationError, JsonRpcException
from pygls.lsp.server import LanguageServer

from raggin_lsp import package_version
from raggin_lsp.project import ProjectCache
from raggin_lsp.server.diagnostics import Catalogs
from raggin_lsp.server.jobs import Jobs
from raggin_lsp.server.loading import Loader
from raggin_lsp.server.protocol import RagginProtocol
from raggin_lsp.server.upgrade import Upgrades
from raggin_lsp.settings import Settings, SettingsStore

log = logging.getLogger(__name__)

NAME = "raggin-lsp"


class RagginServer(LanguageServer):
    protocol: RagginProtocol

    def __init__(self, *, catalogs: Catalogs | None = None) -> None:
        self.jobs = Jobs()  # before the protocol, which holds on to it
        super().__init__(
            NAME,
            package_version(),
            protocol_cls=RagginProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        )
        self.settings_store = SettingsStore()
        self.settings = Settings()
        self.initialization_options: Any = None
        self.loader = Loader(self)
        # Which profile answers each version: light until the configured one's is there.
        self.upgrades = Upgrades(self)
        self.projects = ProjectCache(self.loader.resolve_range)
        self.version_override: str | None = None  # chosen with raggin.selectVersion
        # Runs before each batch of an index job's dense pass and may block (tests hold
        # the pass there to see the version answer lexically); see create_server.
        self.dense_gate: Callable[[], None] | None = None
        # API catalogs: hovers, code actions, diagnostics, diff
        self.catalogs = catalogs or Catalogs()
        self.pending_diagnostics: dict[str, asyncio.Task[None]] = {}  # push, by URI
        self.pending_contexts: dict[str, asyncio.Task[None]] = {}  # files to embed, by URI
        # False once the client asked to shut down: nothing more is sent after that.
        self.connected = True
        self._reporting_error = False

    def exit_now(self) -> NoReturn:
        """End the process at once (the client sent ``exit``), abandoning background work.

        pygls would raise ``SystemExit``, and ``asyncio.run`` then joins the event loop's
        default executor: an API catalog build, the index opening or the model loading
        still running there (seconds, more under load) would keep the process alive long
        after the client gave up waiting for it. Nothing is lost by not waiting: reads and
        caches are dropped, and an index write is kept by the store's write-ahead log and
        ``staging/`` folder, which the next index job resumes (:mod:`raggin_lsp.store.embedded`).
        The exit code is the one the LSP asks for: 0 after ``shutdown``, else 1.
        """
        code = 0 if self.protocol.shutdown_requested else 1
        self.jobs.cancel_all()
        logging.shutdown()  # flushes the log file
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a client that already closed the pipe
                stream.flush()
        os._exit(code)

    def workspace_root(self) -> Path | None:
        """The first workspace folder (or the root URI) as a path, if it is a local one."""
        from pygls.uris import to_fs_path

        folders = list(self.workspace.folders.values())
        uri = folders[0].uri if folders else self.workspace.root_uri
        if not uri:
            return None
        path = to_fs_path(uri)
        return Path(path) if path else None

    def supports_show_document(self) -> bool:
        window = self.client_capabilities.window
        return bool(window and window.show_document and window.show_document.support)

    def supports_configuration(self) -> bool:
        workspace = self.client_capabilities.workspace
        return bool(workspace and workspace.configuration)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log (and show, once at a time) errors pygls meets outside of a request.

        pygls's default shows every one of them, including a failure to write to a
        closed stdout, which would fail again and again at shutdown.

        pygls's read loop reports a body that ``json.loads`` rejects here, with
        ``JsonRpcException`` as the source: that one is answered with a ParseError. (It
        must not raise: the read loop calls it without a guard.)
        """
        unparsable = json.JSONDecodeError | UnicodeDecodeError | RecursionError
        if source is JsonRpcException and isinstance(error, unparsable):
            try:
                self.protocol.answer_unparsable(error)
            except Exception:
                log.exception("Could not answer a message that is not JSON")
            return
        log.error("pygls reported %s: %s", getattr(source, "__name__", source), error)
        if self._reporting_error or not self.connected:
            return
        self._reporting_error = True
        try:
            if source is FeatureNotificationError:
                self.tell(f"raggin: {error}", types.MessageType.Error)
        finally:
            self._reporting_error = False

    def tell(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        """Show a message to the user and keep it in the client's log as well."""
        if not self.connected:
            return
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))
        self.window_log_message(types.LogMessageParams(type=kind, message=message))
