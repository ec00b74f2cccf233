"""Present an :class:`EvalReport`: Markdown tables, a JSON document and a Recall@K plot."""

import json
from pathlib import Path
from typing import Any

from raggin_lsp.errors import RagginError
from raggin_lsp.eval.metrics import K_VALUES, METRIC_KEYS
from raggin_lsp.eval.runner import EvalReport

_DIGITS = 4


class ReportError(RagginError):
    """A report could not be written (missing plotting library, unwritable folder)."""


def _rounded(metrics: dict[str, float]) -> dict[str, float | int]:
    out: dict[str, float | int] = {}
    for key in METRIC_KEYS:
        value = metrics[key]
        out[key] = int(value) if key == "n" else round(value, _DIGITS)
    return out


def to_json(report: EvalReport) -> dict[str, Any]:
    """``{"summary": {...}, "strategies": {name: {...}}, "per_kind": {kind: {name: {...}}}}``.

    ``summary`` holds the default strategy's metrics; every metrics object has the keys
    of ``METRIC_KEYS`` in that order."""
    return {
        "summary": _rounded(report.summary),
        "strategies": {name: _rounded(m) for name, m in report.strategies.items()},
        "per_kind": {
            kind: {name: _rounded(m) for name, m in by_strategy.items()}
            for kind, by_strategy in report.per_kind.items()
        },
        "per_style": {
            style: {name: _rounded(m) for name, m in by_strategy.items()}
            for style, by_strategy in report.per_style.items()
        },
    }


def _cell(key: str, value: float) -> str:
    if key == "n":
        return str(int(value))
    if key.endswith("_ms"):
        return f"{value:.1f}"
    return f"{value:.3f}"


def _table(rows: dict[str, dict[str, float]], first_column: str, mark: str | None) -> list[str]:
    lines = [
        "| " + " | ".join([first_column, *METRIC_KEYS]) + " |",
        "|" + "|".join(["---", *("---:" for _ in METRIC_KEYS)]) + "|",
    ]
    for name, metrics in rows.items():
        label = f"**{name}**" if name == mark else name
        cells = [label, *(_cell(k, metrics[k]) for k in METRIC_KEYS)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def to_markdown(report: EvalReport) -> str:
    """One table of all strategies (the default one in bold), then one table per kind."""
    scope = f" (Next.js {report.version})" if report.version else ""
    lines = [f"## Retrieval quality{scope}", ""]
    lines += _table(report.strategies, "strategy", report.default_strategy)
    for style, by_strategy in report.per_style.items() if len(report.per_style) > 1 else ():
        n = next(iter(by_strategy.values()))["n"] if by_strategy else 0
        lines += ["", f"### {style} questions ({int(n)})", ""]
        lines += _table(by_strategy, "strategy", report.default_strategy)
    for kind, by_strategy in report.per_kind.items():
        n = next(iter(by_strategy.values()))["n"] if by_strategy else 0
        lines += ["", f"### kind: {kind} ({int(n)} questions)", ""]
        lines += _table(by_strategy, "strategy", report.default_strategy)
    return "\n".join(lines) + "\n"


def write_recall_plot(report: EvalReport, path: Path) -> Path:
    """A PNG with one Recall@K line per strategy (K = 1, 3, 5, 10)."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display on servers and CI
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ReportError(
            "Plotting needs matplotlib: pip install matplotlib (or skip the plot)"
        ) from exc

    figure, axes = plt.subplots(figsize=(8, 5), dpi=100)
    try:
        for name, metrics in report.strategies.items():
            style = "-" if name.endswith("+pages") else "--"
            width = 2.5 if name == report.default_strategy else 1.2
            recalls = [metrics[f"R@{k}"] for k in K_VALUES]
            axes.plot(K_VALUES, recalls, style, marker="o", linewidth=width, label=name)
        axes.set_xticks(list(K_VALUES))
        axes.set_xlabel("K (unique pages)")
        axes.set_ylabel("Recall@K")
        axes.set_ylim(0.0, 1.0)
        title = "Page-level Recall@K per strategy"
        axes.set_title(f"{title} (Next.js {report.version})" if report.version else title)
        axes.grid(alpha=0.3)
        axes.legend(loc="lower right", fontsize="small", ncol=2)
        path.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(path, format="png")
    except OSError as exc:
        raise ReportError(f"Cannot write the plot to {path}: {exc}") from exc
    finally:
        plt.close(figure)
    return path


def write_report(report: EvalReport, out_dir: Path, *, plot: bool = True) -> dict[str, Path]:
    """Write ``report.md``, ``report.json`` and (optionally) ``recall.png`` into ``out_dir``."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        markdown = out_dir / "report.md"
        markdown.write_text(to_markdown(report), encoding="utf-8")
        data = out_dir / "report.json"
        data.write_text(json.dumps(to_json(report), indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"Cannot write the evaluation report to {out_dir}: {exc}") from exc
    written = {"markdown": markdown, "json": data}
    if plot:
        written["plot"] = write_recall_plot(report, out_dir / "recall.png")
    return written
