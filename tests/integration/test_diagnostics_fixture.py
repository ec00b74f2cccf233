"""Deprecation diagnostics on a project with known deprecated uses, against the real
16.4.6 catalog (derived from its docs, fetched from npm once and cached).

Precision must be 1.0 (never noisy) and recall at least 0.9. Speed is measured by
``make bench`` (the "diagnostics" row), not asserted here.
"""

from pathlib import Path

from raggin_lsp.code.deprecations import find_deprecations
from raggin_lsp.corpus.apis import load_catalog
from tests.support import deprecation_fixture as fixture


def _findings(root: Path) -> set[tuple[str, int, str]]:
    catalog = load_catalog(fixture.VERSION)
    found = set()
    for name in (*fixture.LABELLED, *fixture.CLEAN):
        text = (root / name).read_text(encoding="utf-8")
        for finding in find_deprecations(catalog, text, str(root / name), name):
            found.add((name, finding.span.line, finding.label))
    return found


def test_precision_is_one_and_recall_at_least_point_nine(tmp_path: Path) -> None:
    root = fixture.build(tmp_path / "project")
    expected = fixture.labels()
    found = _findings(root)
    hits = found & expected
    precision = len(hits) / len(found)
    recall = len(hits) / len(expected)
    assert found - expected == set(), "a diagnostic on code that is no deprecated API"
    assert precision == 1.0
    assert recall >= 0.9, sorted(expected - found)
    assert not {name for name, _, _ in found} & set(fixture.CLEAN)
