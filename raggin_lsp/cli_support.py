"""Pieces every CLI command shares: exit codes, JSON output, status lines, progress bars."""

import argparse
import json
import sys
from collections.abc import Callable
from types import TracebackType
from typing import Any, TextIO

Handler = Callable[[argparse.Namespace], int]

PROG = "raggin-lsp"
EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2


# --- shared helpers ----------------------------------------------------------------------


class ProgressBar:
    """A download progress bar on stderr; silent when stderr is no terminal or with --quiet."""

    def __init__(self, description: str, *, quiet: bool, stream: TextIO | None = None) -> None:
        self._description = description
        self._stream = stream or sys.stderr
        self._enabled = not quiet and self._stream.isatty()
        self._bar: Any = None

    def __call__(self, done: int, total: int | None) -> None:
        if not self._enabled:
            return
        if self._bar is None:
            from tqdm import tqdm  # imported on first use: most commands never download

            self._bar = tqdm(
                total=total,
                desc=self._description,
                unit="B",
                unit_scale=True,
                unit_divisor=1024,
                file=self._stream,
                leave=False,
            )
        self._bar.update(done - self._bar.n)

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.close()


def print_json(data: object) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def note(args: argparse.Namespace, message: str) -> None:
    """Status lines go to stderr, so stdout stays clean for --json consumers."""
    if not getattr(args, "quiet", False):
        print(message, file=sys.stderr)
