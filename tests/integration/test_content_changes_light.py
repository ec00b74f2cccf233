"""`raggin-lsp diff`'s content comparison on the real 16.2.0 light index: a second
version made of the same stored points, one page left out and one section reworded
(imported without embedding anything), shows exactly those changes."""

import json
from pathlib import Path

import pytest

from raggin_lsp.assistant import Assistant, AssistantConfig
from raggin_lsp.content_changes import ContentChanges, NotCompared
from raggin_lsp.embed.catalog import get_profile_spec
from raggin_lsp.store import DocsIndex, StoreSettings
from raggin_lsp.store.points import StoredPoint
from raggin_lsp.store.schema import point_id, section_from_payload

pytestmark = [pytest.mark.network, pytest.mark.slow]

INDEXED, EDITED = "16.2.0", "16.2.1"
EDITED_PAGE = "/docs/app/api-reference/functions/revalidatePath"
REMOVED_PAGE = "/docs/app/api-reference/functions/revalidateTag"


def _index_edited_copy(index_dir: Path) -> str:
    """Store ``EDITED``: 16.2.0 without ``REMOVED_PAGE`` and with one section of
    ``EDITED_PAGE`` reworded; returns that section's anchor."""
    with DocsIndex.open(StoreSettings(path=index_dir), get_profile_spec("light")) as index:
        payloads = index.payloads_of(INDEXED)
        stored = index.points_of(INDEXED)
        vectors = next(stored).vectors  # any point's: the reworded section needs some
        stored.close()
        kept = [p for p in payloads if p["url_path"] != REMOVED_PAGE]
        edited = next(p for p in kept if p["url_path"] == EDITED_PAGE and p["anchor"])
        points = []
        for payload in kept:
            if payload is edited:
                reworded = {**payload, "text": payload["text"] + "\n\nReworded in 16.2.1."}
                section = section_from_payload(reworded, EDITED)
                points.append(StoredPoint(point_id(section), vectors, reworded))
            else:  # already stored: only attached to the new version, no vectors needed
                points.append(
                    StoredPoint(point_id(section_from_payload(payload, EDITED)), {}, payload)
                )
        index.import_points(EDITED, len(points), points)
        return str(edited["anchor"])


def test_the_edited_copy_shows_the_removed_page_and_the_reworded_section(
    writable_light_index: Path,
) -> None:
    anchor = _index_edited_copy(writable_light_index)
    assistant = Assistant(AssistantConfig(profile="light", qdrant_path=writable_light_index))
    try:
        found = assistant.content_changes(INDEXED, EDITED)
        scoped = assistant.content_changes(INDEXED, EDITED, {EDITED_PAGE})
        missing = assistant.content_changes("16.1.0", EDITED)
    finally:
        assistant.close()
    assert isinstance(found, ContentChanges)
    assert [(page.change, page.page) for page in found.pages] == [
        ("removed", REMOVED_PAGE),
        ("changed", EDITED_PAGE),
    ]
    [section] = found.pages[1].sections
    assert (section.anchor, section.change) == (anchor, "changed")
    assert section.heading  # the heading a reader sees, not the anchor only
    assert found.unchanged > 100  # every other page of 16.2.0, outlines not counted as pages
    assert isinstance(scoped, ContentChanges)
    assert [page.page for page in scoped.pages] == [EDITED_PAGE]
    assert scoped.unchanged == 0
    assert isinstance(missing, NotCompared)
    assert missing.commands == ("raggin-lsp index 16.1.0 --profile light",)
    assert "needs both 16.1.0 and 16.2.1 indexed; 16.1.0 is not" in missing.message


def test_the_cli_prints_the_rows_and_what_to_index(
    writable_light_index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from raggin_lsp.cli import main

    store = ["--profile", "light", "--qdrant-path", str(writable_light_index)]
    assert main(["diff", "16.1.0", INDEXED, "--api", "revalidatePath", "--json", *store]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["content"]["missing"] == ["16.1.0"]
    assert answer["content"]["commands"] == ["raggin-lsp index 16.1.0 --profile light"]
    assert main(["diff", "16.1.0", INDEXED, *store]) == 0
    text = capsys.readouterr().out
    assert text.rstrip().endswith("Run `raggin-lsp index 16.1.0 --profile light`.")
