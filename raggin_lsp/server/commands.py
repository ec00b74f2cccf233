"""``workspace/executeCommand`` commands behind the code actions (and editor menus).

- ``raggin.ask`` [AskParams]: answers, saves the answer as Markdown and opens it;
- ``raggin.search`` [SearchParams]: saves the matching sections as Markdown and opens it;
- ``raggin.index`` [version | {version}]: indexes (default: the workspace's version);
- ``raggin.selectVersion`` [version | {version}] or no argument (asks the user): the
  docs version for this session; ``"auto"`` goes back to detecting it per document;
- ``raggin.retryModel`` (no argument): loads the embedding model again now, after a
  failed load (which is otherwise retried only after a backoff); answers its state.
"""

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from raggin_lsp.errors import RagginError
from raggin_lsp.server import answers, requests, targets
from raggin_lsp.server.ask import ask
from raggin_lsp.server.params import AskParams, IndexParams, ParamError, SearchParams, VersionParams

if TYPE_CHECKING:
    from raggin_lsp.server.server import RagginServer

AUTO = "auto"


def _single(arguments: tuple[Any, ...], command: str, *, optional: bool = False) -> Any:
    if not arguments and optional:
        return None
    if len(arguments) != 1:
        raise ParamError(f"{command} takes one argument, got {len(arguments)}")
    return arguments[0]


def _version_object(argument: Any) -> Any:
    """Commands may pass the version string itself: ``["16.2.0"]``."""
    return {"version": argument} if isinstance(argument, str) else argument


async def ask_command(server: "RagginServer", *arguments: Any) -> dict[str, Any]:
    request = server.protocol.structure_params(_single(arguments, "raggin.ask"), AskParams)
    result = await ask(server, request)
    path = answers.write_markdown(request.question, answers.answer_markdown(result))
    result["path"] = str(path)
    result["shown"] = await answers.show(server, path, str(result["answer"]))
    return result


async def search_command(server: "RagginServer", *arguments: Any) -> dict[str, Any]:
    argument = _single(arguments, "raggin.search")
    request = server.protocol.structure_params(argument, SearchParams)
    results = await requests.search(server, request)
    version = results[0]["version"] if results else request.version
    body = answers.search_markdown(request.query, version, results)
    path = answers.write_markdown(f"Next.js docs: {request.query}", body)
    summary = "\n".join(f"{r['heading'] or r['title']}: {r['url']}" for r in results[:5])
    shown = await answers.show(server, path, summary or body)
    return {"results": results, "path": str(path), "shown": shown}


async def index_command(server: "RagginServer", *arguments: Any) -> dict[str, Any]:
    argument = _version_object(_single(arguments, "raggin.index", optional=True))
    request = server.protocol.structure_params(argument, IndexParams)
    return await requests.index(server, request)


async def select_version_command(server: "RagginServer", *arguments: Any) -> dict[str, Any]:
    argument = _single(arguments, "raggin.selectVersion", optional=True)
    if argument is None:
        version = await _ask_user(server)
        if version is None:
            return {"version": server.version_override or AUTO, "changed": False}
    else:
        version = server.protocol.structure_params(_version_object(argument), VersionParams).version
    if version == AUTO:
        server.version_override = None
    else:
        await server.loader.opened()
        if server.loader.catalog is not None:
            server.loader.catalog.require(version)
        server.version_override = version
        if version not in server.loader.indexed and server.settings.auto_index:
            server.upgrades.start_index(version)
    target = targets.resolve(server, None)
    server.window_log_message(
        types.LogMessageParams(
            type=types.MessageType.Info,
            message=f"raggin: Next.js docs version {target.version} ({target.reason})",
        )
    )
    return {"version": version, "changed": True, "effective": target.version}


async def _ask_user(server: "RagginServer") -> str | None:
    await server.loader.opened()
    detected = targets.resolve(server, None)
    choices = [AUTO, *reversed(server.loader.indexed)]
    if detected.version and detected.version not in choices:
        choices.insert(1, detected.version)
    try:
        picked = await server.window_show_message_request_async(
            types.ShowMessageRequestParams(
                type=types.MessageType.Info,
                message="Which Next.js docs version should raggin use?"
                f" (now: {detected.version or 'none'}, {detected.reason})",
                actions=[types.MessageActionItem(title=choice) for choice in choices[:8]],
            )
        )
    except Exception as error:  # the client cannot ask: the argument is then required
        raise RagginError(
            'raggin.selectVersion needs a version argument here, e.g. ["16.2.0"] or ["auto"]'
        ) from error
    return picked.title if picked is not None else None


async def retry_model_command(server: "RagginServer", *arguments: Any) -> dict[str, Any]:
    if arguments:
        raise ParamError(f"raggin.retryModel takes no argument, got {len(arguments)}")
    state = await server.loader.retry_model()
    if state["state"] == "failed":
        raise server.loader.model.unavailable()
    return state
