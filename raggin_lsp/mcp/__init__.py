"""The MCP server (``raggin-lsp mcp``): the same index and Assistant, as tools and resources
for AI coding agents. Only this package imports the ``mcp`` SDK.

``tools.py`` holds what each tool does (no SDK), ``server.py`` registers the tools and
page resources on the SDK's ``MCPServer``, ``entry.py`` reads the settings and runs it.
"""
