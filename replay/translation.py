"""Alias kept for the import path earlier READMEs documented: the translation now lives
in `replay.translate.translation`."""

from __future__ import annotations

from replay.translate.translation import translate_items, translate_stream

__all__ = ["translate_items", "translate_stream"]
