"""Performance measurements behind ``make bench`` (``python -m bench``).

The benchmark lives outside the ``raggin_lsp`` package: it needs a source checkout
(``tests/support`` for the fake Ollama and the torch-file writer, the fixture project)
and test-only packages (``onnx`` for the random-weight graph, pytest-lsp for the client),
none of which an installed wheel has. It imports the package; the package never imports it.
"""

DEFAULT_VERSION = "16.2.0"  # the version the test index holds, so CI can reuse it
NEWER_VERSION = "16.4.6"  # for the share of sections re-embedded on an upgrade
# The bench's stages, in the order it runs them (``--only`` picks some): the in-process
# pipeline rows, the store rows (cold CLI search, upsert, import), the language server
# rows, the bge-m3 rows.
STAGES = ("pipeline", "store", "lsp", "bge-m3")
