"""The MCP server: the tools and page resources of :mod:`raggin_lsp.mcp.tools`, registered
on the official SDK's ``MCPServer``, each with a JSON schema and a description an agent
can act on.

Errors: a :class:`~raggin_lsp.errors.RagginError` becomes a tool error (``isError``) whose
text is the message as raggin wrote it, the same as the language server's; anything else
is a bug, logged with its traceback and answered with a message pointing at the log.
"""

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.types import Resource, ToolAnnotations
from pydantic import Field

from raggin_lsp.errors import RagginError
from raggin_lsp.mcp.tools import MAX_TOP_K, URI_SCHEME, DocsTools

log = logging.getLogger(__name__)

NAME = "raggin"
PAGE_TEMPLATE = f"{URI_SCHEME}://{{version}}/{{+path}}"
MARKDOWN = "text/markdown"

INSTRUCTIONS = """\
Version-exact Next.js documentation, from a local index of the docs that ship with the
Next.js release the project uses. Prefer these tools over memory for Next.js APIs, file
conventions and configuration: behaviour changes between releases. search_docs first,
then get_page for the whole page of a good hit. Results say which version they are from
and why; pass version only to read another release's docs.
"""

# Parameter types: one declaration each, shared by the tools that take them.
Version = Annotated[
    str | None,
    Field(
        description="Next.js release such as 16.2.0 (also 'latest' or an npm range like "
        "^16.2). Default: the version the project uses (installed, else declared)."
    ),
]
Router = Annotated[
    str | None,
    Field(
        description="'app' or 'pages' to keep one router's docs. Default: the project's "
        "router; both when the project has both."
    ),
]
ProjectPath = Annotated[
    str | None,
    Field(
        description="Folder (or file) inside the Next.js project whose version and router "
        "apply. Default: the folder the server was started in."
    ),
]


@contextmanager
def tool_errors(tool: str) -> Iterator[None]:
    """Turn what a tool raises into the tool error the agent reads."""
    try:
        yield
    except RagginError as error:
        log.info("%s: %s", tool, error)
        raise ToolError(str(error)) from error
    except ToolError:
        raise
    except Exception as error:
        log.exception("%s failed unexpectedly", tool)
        raise ToolError(
            f"raggin: {tool} failed unexpectedly ({type(error).__name__}: {error}); "
            "the server log has the details"
        ) from error


class RagginMCPServer(MCPServer[Any]):
    """``MCPServer`` whose resource list is every page of every indexed version."""

    def __init__(self, tools: DocsTools, **options: Any) -> None:
        super().__init__(**options)
        self.docs = tools

    async def list_resources(self) -> list[Resource]:
        try:
            pages = await self.docs.page_listing()
        except RagginError as error:  # nothing indexed, or no index: an empty list
            log.info("resources/list: %s", error)
            pages = []
        return [
            *await super().list_resources(),
            *(
                Resource(uri=uri, name=title, description=description, mime_type=MARKDOWN)
                for uri, title, description in pages
            ),
        ]


def create_server(tools: DocsTools, *, version: str = "") -> RagginMCPServer:
    """The MCP server over ``tools``; ``ask`` only when Ollama is configured."""
    server = RagginMCPServer(tools, name=NAME, version=version, instructions=INSTRUCTIONS)

    @server.tool(
        annotations=ToolAnnotations(title="Search the Next.js docs", read_only_hint=True),
    )
    async def search_docs(
        query: Annotated[
            str,
            Field(description="What to look for: a question, an API name or an error message."),
        ],
        version: Version = None,
        router: Router = None,
        top_k: Annotated[
            int | None, Field(ge=1, le=MAX_TOP_K, description="Number of sections (default 5).")
        ] = None,
        project_path: ProjectPath = None,
    ) -> dict[str, Any]:
        """Search the Next.js docs of the exact version this project uses (hybrid search
        over a local index). Returns the best sections: url (nextjs.org), resource
        (raggin:// address for get_page or resources/read), version, headingPath, score and
        text (Markdown). Fails, saying what to run, when that version is not indexed: then
        call index_version or pass a version list_versions shows as indexed."""
        with tool_errors("search_docs"):
            return await tools.search_docs(query, version, router, top_k, project_path)

    @server.tool(
        annotations=ToolAnnotations(title="Read a Next.js docs page", read_only_hint=True),
    )
    async def get_page(
        url_or_path: Annotated[
            str,
            Field(
                description="A url or resource from search_docs, a nextjs.org docs address "
                "or a docs path such as /docs/app/api-reference/functions/revalidatePath."
            ),
        ],
        version: Version = None,
    ) -> dict[str, Any]:
        """The whole docs page as indexed (Markdown), with its section headings listed.
        Use it after search_docs when one section is not enough."""
        with tool_errors("get_page"):
            return await tools.get_page(url_or_path, version)

    @server.tool(
        annotations=ToolAnnotations(title="Next.js docs versions", read_only_hint=True),
    )
    async def list_versions(project_path: ProjectPath = None) -> dict[str, Any]:
        """Which Next.js versions are indexed (searchable now), which releases exist
        (available to index_version), and the project's version with how it was found."""
        with tool_errors("list_versions"):
            return await tools.list_versions(project_path)

    @server.tool(
        annotations=ToolAnnotations(
            title="Index a Next.js docs version",
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=True,
        ),
    )
    async def index_version(
        version: Annotated[
            str, Field(description="Next.js release to index, e.g. 16.2.0, latest or ^16.2.")
        ],
        ctx: Context,
    ) -> dict[str, Any]:
        """Download, parse and embed one Next.js version's docs so that search_docs and
        get_page can use it. Takes minutes on a laptop CPU; reports progress (0-100).
        Sections already stored for another version are reused."""

        async def progress(done: float, total: float, message: str) -> None:
            await ctx.report_progress(done, total, message)

        with tool_errors("index_version"):
            return await tools.index_version(version, progress)

    @server.tool(
        annotations=ToolAnnotations(title="A Next.js API's reference", read_only_hint=True),
    )
    async def api_info(
        name: Annotated[
            str,
            Field(
                description="An API as code names it: a function or component "
                "(revalidatePath, Image), a module (next/image), a file convention "
                "(proxy.ts, page), a directive (use cache) or a next.config key."
            ),
        ],
        version: Version = None,
        project_path: ProjectPath = None,
    ) -> dict[str, Any]:
        """What the project's Next.js docs say about one API, from their API reference
        (no search): its page url and resource, kind, router, description, how code uses
        it (import path, file pattern), its Version History rows, and any deprecation or
        rename with the replacement. Works for versions that are not indexed."""
        with tool_errors("api_info"):
            return await tools.api_info(name, version, project_path)

    @server.tool(
        annotations=ToolAnnotations(title="What changed in Next.js", read_only_hint=True),
    )
    async def diff(
        since: Annotated[str, Field(description="The older release, e.g. 16.2.0 (exclusive).")],
        version: Version = None,
        api: Annotated[
            str | None, Field(description="Only this API's changes and page, e.g. prefetch.")
        ] = None,
        project_path: ProjectPath = None,
    ) -> dict[str, Any]:
        """What changed after `since` up to the project's version (or `version`), from the
        Version History tables of the newer version's docs: one row per change with the
        API, its page url and the release, plus the APIs changed per minor release. When
        both versions are indexed, `content` lists the pages added, removed and changed
        (with the changed section headings); otherwise it says what to index. Use it for
        upgrade questions; the older version's docs are not needed for the rows."""
        with tool_errors("diff"):
            return await tools.diff(since, version, api, project_path)

    if tools.ollama_configured:

        @server.tool(annotations=ToolAnnotations(title="Ask the Next.js docs", read_only_hint=True))
        async def ask(
            question: Annotated[str, Field(description="The question, in plain words.")],
            version: Version = None,
            router: Router = None,
            project_path: ProjectPath = None,
        ) -> dict[str, Any]:
            """Answer a question from the project's Next.js docs with the configured
            Ollama model, citing the sections used. Agents that write their own answers
            should call search_docs instead."""
            with tool_errors("ask"):
                return await tools.ask(question, version, router, project_path)

    @server.resource(
        PAGE_TEMPLATE,
        name="Next.js docs page",
        description="One page of an indexed Next.js version as Markdown, e.g. "
        f"{URI_SCHEME}://16.2.0/docs/app/api-reference/functions/revalidatePath",
        mime_type=MARKDOWN,
    )
    async def docs_page(version: str, path: str) -> str:
        try:
            return await tools.read_page(version, path)
        except RagginError as error:
            raise ResourceNotFoundError(str(error)) from error
        except Exception as error:
            log.exception("resources/read of %s/%s failed", version, path)
            raise ResourceError(f"raggin: reading the page failed ({error})") from error

    return server
