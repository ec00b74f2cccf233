"""Profiles that upgrade: the light index answers until the configured one is there.

With a profile other than ``light`` (``bge-m3``, the default), a version is answered
from that profile's index once its index of the version is complete. Until then, and
for good when its model cannot be had (no download, not enough memory), the ``light``
profile's index of the version answers: indexed with ``light`` first when needed
(searchable lexically within seconds), while the configured profile's index is built in
the background after the light job (the store has one writer at a time). When it
completes, the next requests are answered from it without a restart, and the user is
told so once. A model that cannot load is reported once by its loader, with what to do
(:mod:`.model_state`), and not tried again before its backoff: answers stay on light.

Every answer says where it came from: ``profile`` next to ``indexStage``.
"""

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from raggin_lsp.errors import RagginError
from raggin_lsp.server.loading import Loader
from raggin_lsp.server.model_state import FALLBACK_PROFILE, ModelUnavailable

if TYPE_CHECKING:
    from raggin_lsp.assistant import Assistant
    from raggin_lsp.server.server import RagginServer

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Answerer:
    """The Assistant that answers a version now, and the loader (profile) it belongs to."""

    assistant: "Assistant"
    loader: Loader

    @property
    def profile(self) -> str:
        return self.loader.profile

    def stage(self, version: str) -> str:
        return self.loader.stage(version)


class Upgrades:
    """Which profile answers each version, and the background jobs that upgrade it."""

    def __init__(self, server: "RagginServer") -> None:
        self._server = server
        self._light: Loader | None = None
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self.switched: dict[str, str] = {}  # version -> what the user was told, once

    @property
    def upgrading(self) -> bool:
        """Whether the configured profile falls back to light while it is not there."""
        return self._server.loader.profile != FALLBACK_PROFILE

    @property
    def light(self) -> Loader | None:
        """The fallback's loader, once something needed it."""
        return self._light if self.upgrading else None

    def _light_loader(self) -> Loader:
        if self._light is None:
            self._light = Loader(self._server, profile=FALLBACK_PROFILE)
        return self._light

    def _loaders(self) -> list[Loader]:
        light = self.light
        return [self._server.loader, *([light] if light is not None else [])]

    # -- answering ------------------------------------------------------------

    async def answering(self, version: str) -> Answerer:
        """The Assistant that answers ``version``, its model loaded: the configured
        profile's when its index of ``version`` is complete, else light's (indexed first
        when autoIndex allows, else :class:`NotIndexedError`)."""
        primary = self._server.loader
        if not self.upgrading:
            assistant = await primary.assistant()
            await primary.ensure_indexed(version)
            return Answerer(assistant, primary)
        await primary.opened()
        if version in primary.indexed:
            try:
                return Answerer(await primary.assistant(), primary)
            except ModelUnavailable as error:  # told once by its load: light answers
                log.info("Answering Next.js %s from the light index: %s", version, error)
        light = self._light_loader()
        await light.opened()
        if light.answers(version) or self._server.settings.auto_index:
            try:
                assistant = await light.assistant()
            except ModelUnavailable as error:
                log.info("No light model either: %s", error)
            else:
                await light.ensure_indexed(version)
                self.upgrade(version)
                return Answerer(assistant, light)
        # No light index and autoIndex off, or no light model: the configured profile as
        # it is (its model's failure, or "not indexed" with how to index it).
        assistant = await primary.assistant()
        await primary.ensure_indexed(version)
        return Answerer(assistant, primary)

    def ready(self, version: str) -> Answerer | None:
        """The Assistant answering ``version`` now with its model loaded, without waiting
        (hovers and code actions never wait for loading or indexing)."""
        for loader in self._loaders():
            assistant = loader.ready_assistant()
            if assistant is not None and loader.answers(version) and loader.model.phase == "ready":
                return Answerer(assistant, loader)
        return None

    def searchable(self, version: str) -> bool:
        """Whether some profile's index answers ``version`` now (lexically at least)."""
        return any(loader.answers(version) for loader in self._loaders())

    # -- upgrading ------------------------------------------------------------

    def start_index(self, version: str) -> None:
        """Index ``version`` in the background (autoIndex): with light first when the
        configured profile is another one, then with that profile."""
        if not self.upgrading:
            self._server.loader.start_index(version)
            return
        self.upgrade(version)

    def upgrade(self, version: str) -> None:
        """Build the configured profile's index of ``version`` in the background (after
        the light job), unless it is complete, running, not wanted (autoIndex off) or
        its model's failure holds (told once already)."""
        primary = self._server.loader
        if not self.upgrading or version in primary.indexed or version in self._tasks:
            return
        if not self._server.settings.auto_index:
            return
        if primary.model.phase == "failed" and not primary.model.may_start():
            light = self._light_loader()
            light.start_index(version)  # light only: it finishes what answers now
            return
        self._tasks[version] = self._server.jobs.spawn(
            self._upgrade(version), name=f"upgrade-{version}"
        )

    async def _upgrade(self, version: str) -> None:
        primary = self._server.loader
        light = self._light_loader()
        light.start_index(version)  # what answers meanwhile, while bge-m3 downloads
        try:
            await primary.assistant()  # its model first: a failure ends the upgrade
            if version not in light.indexed:
                try:
                    await light.index(version)  # joins the job a request started
                except RagginError as error:  # the bge-m3 index is built all the same
                    log.info("No light index of Next.js %s: %s", version, error)
            await primary.index(version)
        except ModelUnavailable as error:  # told once by the model's load
            log.info("Next.js %s stays on the light index: %s", version, error)
            return
        except RagginError as error:
            log.warning(
                "Could not build the %s index of Next.js %s: %s", primary.profile, version, error
            )
            return
        finally:
            self._tasks.pop(version, None)
        if version in primary.indexed and version not in self.switched:
            message = (
                f"raggin: Next.js {version} is now answered from its {primary.profile} index "
                f"(until now from the {FALLBACK_PROFILE} one)."
            )
            self.switched[version] = message
            log.info("%s", message)
            self._server.tell(message, types.MessageType.Info)

    async def reconfigure(self) -> None:
        """After a settings change: stop the upgrades under way, reload the fallback (or
        drop it when the configured profile is light itself)."""
        for task in list(self._tasks.values()):
            task.cancel("the settings changed")
        light = self._light
        if light is None:
            return
        if self.upgrading:
            await light.reconfigure()
            return
        self._light = None
        await light.close()

    # -- reporting ------------------------------------------------------------

    def answering_json(self) -> list[dict[str, str]]:
        """Each version some index answers, with the profile and stage answering it now."""
        found: dict[str, dict[str, str]] = {}
        for loader in self._loaders():
            for version in [*loader.indexed, *loader.stages]:
                if version not in found:
                    found[version] = {
                        "version": version,
                        "profile": loader.profile,
                        "stage": loader.stage(version),
                    }
        return list(found.values())

    def status(self) -> dict[str, Any]:
        light = self.light
        return {
            "profile": self._server.loader.profile,
            "fallback": FALLBACK_PROFILE if self.upgrading else None,
            "answering": self.answering_json(),
            "upgrading": sorted(self._tasks),
            "switched": sorted(self.switched),
            "fallbackLoading": light.status() if light is not None else None,
        }
