"""Start the server under pytest-lsp and talk to it (shared by the server and e2e tests)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcMethodNotFound
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import register_lsp_features

from raggin_lsp.server.params import plain

FIXTURE = Path(__file__).parents[1] / "fixtures" / "nextjs-project"
LOAD_TITLE = "Loading Next.js docs index"
_LANGUAGE_IDS = {".ts": "typescript", ".tsx": "typescriptreact", ".js": "javascript", ".mdx": "mdx"}


def _code_action_or_command(obj: Any, _: type) -> types.Command | types.CodeAction:
    # lsprotocol 2025.0.0 reads every item with a "command" key as a Command, but a
    # CodeAction carries its Command under "command" too: only a string means Command.
    if isinstance(obj.get("command"), str):
        return converter.structure(obj, types.Command)
    return converter.structure(obj, types.CodeAction)


converter = default_converter()
converter.register_structure_hook(types.Command | types.CodeAction, _code_action_or_command)


def make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=lambda: converter)
    register_lsp_features(client)
    return client


def copy_fixture(destination: Path) -> Path:
    """A private copy of the fixture project (node_modules/next included)."""
    root = destination / "nextjs-project"
    shutil.copytree(FIXTURE, root)
    return root


@dataclass
class Session:
    client: LanguageClient
    root: Path
    initialize_seconds: float
    result: types.InitializeResult

    def uri(self, relative: str) -> str:
        return (self.root / relative).as_uri()

    def open(self, relative: str) -> str:
        path = self.root / relative
        uri = path.as_uri()
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri,
                    language_id=_LANGUAGE_IDS.get(path.suffix, "plaintext"),
                    version=1,
                    text=path.read_text(encoding="utf-8"),
                )
            )
        )
        return uri

    def position_of(self, relative: str, needle: str, offset: int = 1) -> types.Position:
        text = (self.root / relative).read_text(encoding="utf-8")
        index = text.index(needle)
        line = text.count("\n", 0, index)
        return types.Position(
            line=line, character=index - (text.rfind("\n", 0, index) + 1) + offset
        )

    async def request(self, method: str, params: Any, msg_id: str | None = None) -> Any:
        result = await self.client.protocol.send_request_async(method, params, msg_id)
        return plain(result)

    async def command(self, name: str, *arguments: Any) -> Any:
        result = await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(arguments))
        )
        return plain(result)

    def tokens_titled(self, title: str) -> list[Any]:
        return [
            token
            for token, reports in self.client.progress_reports.items()
            if reports
            and isinstance(reports[0], types.WorkDoneProgressBegin)
            and reports[0].title.startswith(title)
        ]

    async def wait_for(self, condition: Any, timeout: float = 20.0) -> None:
        """Wait (on incoming messages, not a fixed sleep) until ``condition()`` holds."""
        deadline = time.monotonic() + timeout
        while not condition():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("the condition did not hold in time")
            waiter = self.client.protocol.wait_for_notification_async(types.PROGRESS)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(waiter), min(remaining, 0.2))

    def ended(self, token: Any) -> bool:
        reports = self.client.progress_reports.get(token, [])
        return bool(reports) and isinstance(reports[-1], types.WorkDoneProgressEnd)

    async def loaded(self, timeout: float = 60.0) -> None:
        """Wait for the background load's progress to end."""
        await self.wait_for(
            lambda: any(self.ended(t) for t in self.tokens_titled(LOAD_TITLE)), timeout
        )


def _warm_up_client(params: types.InitializeParams) -> None:
    """Let cattrs build the test client's (de)serializers before the timing starts.

    They are built on first use, for the client's own side of the round trip; the time
    that matters is the server's.
    """
    converter.unstructure(params)
    sample = types.InitializeResult(
        capabilities=types.ServerCapabilities(
            position_encoding=types.PositionEncodingKind.Utf16,
            text_document_sync=types.TextDocumentSyncOptions(
                open_close=True, change=types.TextDocumentSyncKind.Incremental
            ),
            hover_provider=True,
            code_action_provider=types.CodeActionOptions(code_action_kinds=["quickfix"]),
            execute_command_provider=types.ExecuteCommandOptions(commands=["x"]),
            workspace=types.WorkspaceOptions(
                workspace_folders=types.WorkspaceFoldersServerCapabilities(
                    supported=True, change_notifications=True
                )
            ),
        ),
        server_info=types.ServerInfo(name="x", version="0"),
    )
    converter.structure(converter.unstructure(sample), types.InitializeResult)


async def _until_reading(client: LanguageClient) -> None:
    """Return once the server process reads its input (Python and imports are done).

    ``initialize`` is then timed from the moment the server can act on it, which is what
    an editor waits for once the process runs. The probe is a method nobody handles: the
    server answers it with MethodNotFound.
    """
    with contextlib.suppress(JsonRpcMethodNotFound):
        await asyncio.wait_for(client.protocol.send_request_async("raggin/$probe", {}), 60)


@asynccontextmanager
async def lsp_session(
    command: list[str],
    root: Path,
    *,
    env: Mapping[str, str] | None = None,
    client: str = "visual_studio_code",
    initialization_options: Any = None,
    configuration: dict[str, Any] | None = None,
) -> AsyncIterator[Session]:
    config = ClientServerConfig(
        server_command=command,
        server_env={**os.environ, **(env or {})},
        client_factory=make_client,
    )
    language_client = await config.start()
    assert isinstance(language_client, LanguageClient)
    if configuration is not None:
        language_client.set_configuration(configuration)
    try:
        params = types.InitializeParams(
            capabilities=client_capabilities(client),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=initialization_options,
        )
        language_client.capabilities = params.capabilities  # pytest-lsp checks with these
        _warm_up_client(params)
        await _until_reading(language_client)
        started = time.perf_counter()
        result = await language_client.initialize_session(params)
        elapsed = time.perf_counter() - started
        yield Session(language_client, root, elapsed, result)
    finally:
        try:
            await asyncio.wait_for(language_client.shutdown_session(), 10)
        finally:
            await language_client.stop()
