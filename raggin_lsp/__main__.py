"""``python -m raggin_lsp`` is the ``raggin-lsp`` command."""

import sys

from raggin_lsp.cli import main

if __name__ == "__main__":
    sys.exit(main())
