"""Settings in the server: read each source into its layer, tell the user what is wrong.

See :mod:`raggin_lsp.settings` for the order. The client's section is pulled with
``workspace/configuration`` after ``initialized`` and again on every
``workspace/didChangeConfiguration``; clients that cannot be asked push it instead.
"""

import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from raggin_lsp import paths
from raggin_lsp.server.params import plain
from raggin_lsp.settings import SECTION, WORKSPACE_FILE

if TYPE_CHECKING:
    from raggin_lsp.server.server import RagginServer

log = logging.getLogger(__name__)


def _report(server: "RagginServer", problems: list[str]) -> None:
    for problem in problems:
        server.tell(f"raggin settings: {problem}")


def read_files(server: "RagginServer") -> None:
    """The user's config file and the workspace's ``.raggin.yaml``."""
    problems = server.settings_store.update_file("user", paths.config_file())
    root = server.workspace_root()
    if root is not None:
        problems += server.settings_store.update_file("workspace", root / WORKSPACE_FILE)
    server.settings = server.settings_store.effective()
    _report(server, problems)


def apply_initialization_options(server: "RagginServer", options: Any) -> None:
    options = plain(options)
    # Clients put the settings either at the top level or under "raggin".
    problems = server.settings_store.update(
        "initializationOptions", options, base=server.workspace_root()
    )
    server.settings = server.settings_store.effective()
    _report(server, problems)


async def pull_client_settings(server: "RagginServer", pushed: Any = None) -> None:
    """Refresh the client's layer (asking the client when it can be asked)."""
    section: Any = None
    if server.supports_configuration():
        root = server.workspace_root()
        try:
            values = await server.workspace_configuration_async(
                types.ConfigurationParams(
                    items=[
                        types.ConfigurationItem(
                            section=SECTION,
                            scope_uri=root.as_uri() if root is not None else None,
                        )
                    ]
                )
            )
        except Exception as error:  # a client that fails to answer keeps its old layer
            log.warning("workspace/configuration failed: %s", error)
            return
        section = plain(values[0]) if values else None
    else:
        pushed = plain(pushed)
        if isinstance(pushed, dict) and SECTION in pushed:
            section = pushed[SECTION]
        else:
            return
    problems = server.settings_store.update(
        "client", section, source="client settings (raggin.*)", base=server.workspace_root()
    )
    server.settings = server.settings_store.effective()
    _report(server, problems)


async def did_change_configuration(
    server: "RagginServer", params: types.DidChangeConfigurationParams
) -> None:
    await pull_client_settings(server, params.settings)
    read_files(server)
    await server.loader.reconfigure()
    await server.upgrades.reconfigure()
