"""Performance measurements behind ``raggin-lsp bench`` (and ``make bench``)."""

DEFAULT_VERSION = "16.2.0"  # the version the test index holds, so CI can reuse it
NEWER_VERSION = "16.4.6"  # for the share of sections re-embedded on an upgrade
