"""Formatting helpers; no legacy names here, so migrate never parses this file."""

from __future__ import annotations


def money(cents: int) -> str:
    return f"{cents / 100:.2f}"
