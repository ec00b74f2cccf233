"""Every LSP registration of the server, in one place.

Each handler is a thin adapter: call the feature module, and let the boundary turn errors
into JSON-RPC answers (named after the feature in the log). A ``raggin/*`` request is one
line, :func:`custom_request`: its method, its typed params (``server/params.py``), its
handler.
"""

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from lsprotocol import types

from raggin_lsp.server import (
    ask,
    code_actions,
    commands,
    configuration,
    context_vectors,
    diagnostics,
    hover,
    requests,
)
from raggin_lsp.server.boundary import boundary, quiet
from raggin_lsp.server.log import ClientLogHandler
from raggin_lsp.server.model_state import RETRY_COMMAND
from raggin_lsp.server.params import (
    AskParams,
    DiffParams,
    DocumentParams,
    IndexParams,
    NoParams,
    SearchParams,
    VersionParams,
)
from raggin_lsp.server.protocol import request_type
from raggin_lsp.server.server import RagginServer
from raggin_lsp.server.targets import require_version, resolve

log = logging.getLogger(__name__)

P = TypeVar("P")

SEARCH = "raggin/search"
ASK = "raggin/ask"
VERSIONS = "raggin/versions"
INDEX = "raggin/index"
REMOVE_VERSION = "raggin/removeVersion"
MODELS = "raggin/models"
STATUS = "raggin/status"
DIFF = "raggin/diff"


def create_server(
    log_handler: ClientLogHandler | None = None,
    *,
    dense_gate: Callable[[], None] | None = None,
    catalogs: diagnostics.Catalogs | None = None,
) -> RagginServer:
    """The language server with every feature; ``dense_gate`` runs before each batch of
    an index job's dense pass (and may block: tests hold the pass there); ``catalogs``
    builds the API catalogs (tests pass a slow one)."""
    server = RagginServer(catalogs=catalogs)
    server.dense_gate = dense_gate

    @server.feature(types.INITIALIZE)
    def initialize(ls: RagginServer, params: types.InitializeParams) -> None:
        # Only cheap work here: the index loads after `initialized`.
        configuration.read_files(ls)
        if params.initialization_options is not None:
            configuration.apply_initialization_options(ls, params.initialization_options)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: RagginServer, params: types.InitializedParams) -> None:
        if log_handler is not None:
            log_handler.attach(ls)
        await configuration.pull_client_settings(ls)
        ls.loader.start()
        ls.jobs.spawn(_index_workspace_version(ls), name="auto-index-workspace")

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: RagginServer, params: types.DidChangeConfigurationParams
    ) -> None:
        before = ls.settings.diagnostics
        await configuration.did_change_configuration(ls, params)
        if ls.settings.diagnostics != before:
            diagnostics.refresh(ls)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RagginServer, params: types.DidOpenTextDocumentParams) -> None:
        diagnostics.schedule(ls, params.text_document.uri)
        context_vectors.schedule(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RagginServer, params: types.DidChangeTextDocumentParams) -> None:
        diagnostics.schedule(ls, params.text_document.uri, diagnostics.PUSH_DELAY)
        context_vectors.schedule(ls, params.text_document.uri, context_vectors.CHANGE_DELAY)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RagginServer, params: types.DidCloseTextDocumentParams) -> None:
        diagnostics.clear(ls, params.text_document.uri)
        context_vectors.clear(ls, params.text_document.uri)

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier=diagnostics.SOURCE,
            inter_file_dependencies=False,
            workspace_diagnostics=False,
        ),
    )
    @quiet("diagnostic", types.RelatedFullDocumentDiagnosticReport(items=[]))
    async def on_diagnostic(
        ls: RagginServer, params: types.DocumentDiagnosticParams
    ) -> types.RelatedFullDocumentDiagnosticReport:
        return await diagnostics.pull(ls, params)

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def progress_cancel(ls: RagginServer, params: types.WorkDoneProgressCancelParams) -> None:
        ls.jobs.cancel_token(params.token)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: RagginServer, params: Any) -> None:
        ls.connected = False
        ls.jobs.cancel_all()

    @server.feature(types.EXIT)
    def exit_(ls: RagginServer, params: Any) -> None:
        ls.exit_now()

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @quiet("hover", None)
    async def on_hover(ls: RagginServer, params: types.HoverParams) -> types.Hover | None:
        return await hover.hover(ls, params)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[code_actions.KIND]),
    )
    @quiet("codeAction", None)
    async def on_code_action(
        ls: RagginServer, params: types.CodeActionParams
    ) -> list[types.CodeAction | types.Command] | None:
        return await code_actions.code_actions(ls, params)

    custom_request(server, SEARCH, SearchParams, requests.search, job=True)
    custom_request(server, ASK, AskParams, ask.ask, job=True)
    custom_request(server, VERSIONS, DocumentParams, requests.versions)
    custom_request(server, INDEX, IndexParams, requests.index, job=True)
    custom_request(server, REMOVE_VERSION, VersionParams, requests.remove_version)
    custom_request(server, MODELS, NoParams, requests.models)
    custom_request(server, STATUS, NoParams, requests.status)
    custom_request(server, DIFF, DiffParams, requests.diff)

    @server.command(code_actions.ASK)
    @boundary(code_actions.ASK)
    async def ask_command(ls: RagginServer, *arguments: Any) -> dict[str, Any]:
        with ls.jobs.request(ls.protocol.msg_id):
            return await commands.ask_command(ls, *arguments)

    @server.command(code_actions.SEARCH)
    @boundary(code_actions.SEARCH)
    async def search_command(ls: RagginServer, *arguments: Any) -> dict[str, Any]:
        with ls.jobs.request(ls.protocol.msg_id):
            return await commands.search_command(ls, *arguments)

    @server.command(code_actions.INDEX)
    @boundary(code_actions.INDEX)
    async def index_command(ls: RagginServer, *arguments: Any) -> dict[str, Any]:
        with ls.jobs.request(ls.protocol.msg_id):
            return await commands.index_command(ls, *arguments)

    @server.command(code_actions.SELECT_VERSION)
    @boundary(code_actions.SELECT_VERSION)
    async def select_version_command(ls: RagginServer, *arguments: Any) -> dict[str, Any]:
        return await commands.select_version_command(ls, *arguments)

    @server.command(RETRY_COMMAND)
    @boundary(RETRY_COMMAND)
    async def retry_model_command(ls: RagginServer, *arguments: Any) -> dict[str, Any]:
        return await commands.retry_model_command(ls, *arguments)

    return server


def custom_request(
    server: RagginServer,
    method: str,
    params_type: type[P],
    handler: Callable[[RagginServer, P], Awaitable[Any]],
    *,
    job: bool = False,
) -> None:
    """Serve ``method``: pygls structures its params as ``params_type`` (a field that does
    not fit is answered InvalidParams naming it), the boundary answers errors, and a
    ``job`` can be cancelled with ``$/cancelRequest`` while it runs."""
    server.protocol.custom_types[method] = request_type(method, params_type)

    @server.feature(method)
    @boundary(method)
    async def handle(ls: RagginServer, params: P) -> Any:
        if not job:
            return await handler(ls, params)
        with ls.jobs.request(ls.protocol.msg_id):
            return await handler(ls, params)


async def _index_workspace_version(server: RagginServer) -> None:
    """With autoIndex, index the workspace project's version as soon as the index is open."""
    try:
        await server.loader.opened()
    except Exception:  # the load failure is reported by the loader itself
        return
    if not server.settings.auto_index or server.workspace_root() is None:
        return
    target = resolve(server, None)
    if target.project is None or target.project.version is None:
        return
    try:
        version = require_version(target)
    except Exception:
        return
    if version not in server.loader.indexed:
        log.info("The workspace uses Next.js %s: indexing its docs (autoIndex)", version)
        server.upgrades.start_index(version)
