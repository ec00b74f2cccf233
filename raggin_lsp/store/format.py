"""The version of the embedded index's on-disk layout.

Written into every generation's ``manifest.json``; a folder written in another layout is
reported with the command that rebuilds it instead of being misread. Bump it whenever
:mod:`raggin_lsp.store.embedded` or :mod:`raggin_lsp.store.edge` change what is on disk
(the test index cache is keyed by this file, see ``tests/conftest.py``).
"""

EMBEDDED_FORMAT = 1
