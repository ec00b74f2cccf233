"""Errors whose message is written for the user who will read it.

Every stage raises a subclass of :class:`RagginError` for a problem the user can act
on. The CLI prints the message and exits non-zero; the language server turns it into
a JSON-RPC ``ResponseError``. Anything else is a bug and is logged with its traceback.
"""


class RagginError(Exception):
    """A failure with a message fit to show to the user as it is."""


class UnknownVersionError(RagginError):
    """The requested Next.js version is not a known release."""


class OfflineError(RagginError):
    """A download was needed but the network (or the registry) could not be reached."""


class IntegrityError(RagginError):
    """Downloaded bytes do not match the checksum the registry published."""


class UnsafeArchiveError(RagginError):
    """An archive holds members that would escape the target folder or exceed the caps."""


class NotIndexedError(RagginError):
    """A version was asked for that the index does not hold (completely)."""


class ModelError(RagginError):
    """An embedding model could not be found, fetched or loaded."""


def not_indexed_message(version: str, other_ways: str, *, profile: str | None = None) -> str:
    """What a front end says when ``version`` is not indexed: the CLI command (with
    ``--profile`` when one is given), then ``other_ways`` that front end offers."""
    option = f" --profile {profile}" if profile else ""
    return (
        f"The Next.js {version} docs are not indexed yet. Index them with "
        f"`raggin-lsp index {version}{option}` {other_ways}."
    )
