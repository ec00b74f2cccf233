"""The bench's one table: rows of median/p95 figures, as text or JSON."""

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.stats import Summary

LIGHT = "light profile, in-process"
LSP = "light profile, over LSP (server subprocess, stdio)"
BGE_M3 = "bge-m3 architecture, random weights (speed only)"
FAILED = "n/a (failed: "
FOOTNOTE = (
    "median and p95 (95th percentile, linear) over the runs; p95 '-' = measured once or exact. "
    "For a rate (sections/s) p95 is the fast end."
)


@dataclass(frozen=True)
class Row:
    """One figure. ``median`` None means not measured; ``note`` then says why."""

    group: str
    name: str
    unit: str
    median: float | None
    p95: float | None = None  # None for figures measured once or exact
    runs: int = 1
    note: str = ""  # how it was measured (or why it is n/a)

    @classmethod
    def of(cls, group: str, name: str, unit: str, summary: Summary, note: str = "") -> "Row":
        return cls(group, name, unit, summary.median, summary.p95, summary.runs, note)

    @classmethod
    def unavailable(cls, group: str, name: str, unit: str, reason: str) -> "Row":
        return cls(group, name, unit, None, None, 0, f"n/a ({reason})")

    @property
    def measured(self) -> bool:
        return self.median is not None and math.isfinite(self.median)

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "name": self.name,
            "unit": self.unit,
            "median": self.median,
            "p95": self.p95,
            "runs": self.runs,
            "note": self.note,
        }


@dataclass
class BenchReport:
    rows: list[Row] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)

    def add(self, *rows: Row) -> None:
        self.rows.extend(rows)

    @property
    def failed(self) -> bool:
        """A stage broke (its rows say how), as opposed to being skipped or unavailable."""
        return any(row.note.startswith(FAILED) for row in self.rows)

    def to_json(self) -> dict[str, Any]:
        return {"context": self.context, "rows": [row.to_json() for row in self.rows]}


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    if not math.isfinite(value):
        return str(value)
    magnitude = abs(value)
    if magnitude >= 100:
        return f"{value:,.0f}"
    if magnitude >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}" if magnitude >= 0.1 or value == 0 else f"{value:.3g}"


def render_table(report: BenchReport) -> str:
    """A plain-text table, grouped, with the context lines above it."""
    header = ("figure", "median", "p95", "runs", "unit", "how")
    lines: list[str] = [f"{key}: {value}" for key, value in report.context.items()]
    body: list[tuple[str, ...] | str] = []
    group = None
    for row in report.rows:
        if row.group != group:
            group = row.group
            body.append(f"[{group}]")
        body.append(
            (
                row.name,
                _number(row.median) if row.measured else "n/a",
                _number(row.p95),
                str(row.runs) if row.runs else "-",
                row.unit,
                row.note,
            )
        )
    cells = [header, *(item for item in body if isinstance(item, tuple))]
    widths = [max(len(cell[i]) for cell in cells) for i in range(len(header) - 1)]

    def line(cell: Sequence[str]) -> str:
        left = cell[0].ljust(widths[0])
        numbers = [cell[i].rjust(widths[i]) for i in range(1, 4)]
        return "  ".join([left, *numbers, cell[4].ljust(widths[4]), cell[5]]).rstrip()

    if lines:
        lines.append("")
    rendered = [item if isinstance(item, str) else line(item) for item in body]
    lines.append(line(header))
    lines.append("-" * max(len(text) for text in [line(header), *rendered]))
    lines.extend(rendered)
    lines.append("")
    lines.append(FOOTNOTE)
    return "\n".join(lines)
