"""The command palette's answer (`/palette.json?q=…`), as pydantic models: what base.html's palette lists."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class PaletteItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["page", "session", "way", "decision"]
    label: str
    detail: str = ""
    url: str


class PaletteDocument(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str
    items: list[PaletteItem]
