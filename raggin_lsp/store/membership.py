"""Which versions a stored point belongs to, and which versions the manifest lists.

A point's ``versions`` payload names every Next.js release that holds its section (content
addressing: an unchanged section is stored once). A version's manifest entry says how far
its job got: started, searchable lexically while dense vectors arrive, or complete. The
write jobs (:mod:`raggin_lsp.store.jobs`) and :class:`~raggin_lsp.store.index.DocsIndex`
change both through these steps, against a :class:`~raggin_lsp.store.views.WriteView`.
"""

import time
from collections import defaultdict

from raggin_lsp.embed.catalog import DEFAULT_PROFILE
from raggin_lsp.store.model import EntryState, VersionInfo
from raggin_lsp.store.schema import version_key
from raggin_lsp.store.views import WriteView


def mark_started(view: WriteView, version: str, sections: int) -> VersionInfo:
    """List ``version`` as started (keeping what an earlier run reached); its entry."""
    previous = view.entry(version)
    if previous is None or not previous.complete:
        lexical = previous is not None and previous.lexical and previous.sections == sections
        view.put_entry(
            version,
            EntryState(
                complete=False,
                sections=sections,
                started_at=previous.started_at if lexical and previous else time.time(),
                lexical=lexical,
                dense=previous.dense if lexical and previous else 0,
            ),
        )
    entry = view.entry(version)
    assert entry is not None
    return entry


def mark_lexical(view: WriteView, version: str, sections: int, dense: int, since: float) -> None:
    """List ``version`` as searchable lexically, ``dense`` sections holding dense vectors."""
    view.put_entry(
        version,
        EntryState(complete=False, sections=sections, started_at=since, lexical=True, dense=dense),
    )


def attach(view: WriteView, version: str, stored: dict[str, list[str]]) -> None:
    """Add ``version`` to the stored points ``stored`` (id -> the versions they list)."""
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for pid, versions in stored.items():
        if version not in versions:
            groups[tuple(versions)].append(pid)
    for old, ids in groups.items():
        view.points.set_versions(ids, sorted({*old, version}, key=version_key))


def detach(view: WriteView, version: str, stored: dict[str, list[str]]) -> int:
    """Drop ``version`` from the points ``stored``; delete those no other version lists.

    Returns the number of points deleted.
    """
    orphans = {pid for pid, versions in stored.items() if set(versions) <= {version}}
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for pid, versions in stored.items():
        if pid not in orphans and version in versions:
            groups[tuple(v for v in versions if v != version)].append(pid)
    for kept, ids in groups.items():
        view.points.set_versions(ids, list(kept))
    view.points.delete(sorted(orphans))
    return len(orphans)


def detach_stale(view: WriteView, version: str, ids: set[str]) -> None:
    """Drop the version from the stored sections it no longer has."""
    stale = {
        p.id: list(p.payload.get("versions", []))
        for p in view.points.with_version(version)
        if p.id not in ids
    }
    detach(view, version, stale)


def finish(view: WriteView, version: str, ids: set[str]) -> None:
    """Drop the version from sections it no longer has, then list it as complete."""
    detach_stale(view, version, ids)
    previous = view.entry(version)
    view.put_entry(
        version,
        EntryState(
            complete=True,
            sections=len(ids),
            started_at=previous.started_at if previous is not None else time.time(),
        ),
    )


def not_indexed_message(
    version: str,
    profile: str,
    collection: str,
    available: list[str],
    infos: list[VersionInfo],
    every: list[VersionInfo],
) -> str:
    """Why ``version`` cannot be searched with ``profile`` and what to run: it is
    searchable lexically only, started but not finished, or not indexed (``available``:
    the versions that can; ``infos``: this collection's entries; ``every``: all entries)."""
    held = ", ".join(available) if available else "none yet"
    option = "" if profile == DEFAULT_PROFILE else f" --profile {profile}"
    started = [i for i in infos if i.version == version and not i.complete]
    if started and started[0].lexical:
        message = (
            f"Next.js {version} is searchable lexically while its dense vectors are "
            f"added ({started[0].stage}); this needs it indexed completely. Finish it "
            f"with `raggin-lsp index {version}{option}`; what was stored is reused."
        )
    elif started:
        message = (
            f"Indexing Next.js {version} for the '{profile}' profile was started "
            f"but not finished (indexed versions: {held}). Finish it with "
            f"`raggin-lsp index {version}{option}`; what was stored is reused."
        )
    else:
        message = (
            f"Next.js {version} is not indexed for the '{profile}' profile "
            f"(indexed versions: {held}). Index it with `raggin-lsp index {version}{option}`."
        )
    outdated = [
        info
        for info in every
        if info.profile == profile and info.collection != collection and info.version == version
    ]
    if outdated:
        message += (
            f" The index holds {version} embedded with an older '{profile}' model "
            f"({outdated[0].fingerprint}), which cannot be searched with the current one."
        )
    return message
