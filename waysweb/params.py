"""Lenient readers for query-string parameters: a malformed value reads as absent, never a 500."""

from __future__ import annotations

from datetime import date

from django.http import HttpRequest


def int_param(request: HttpRequest, name: str, default: int | None = None) -> int | None:
    raw = request.GET.get(name, "")
    try:
        return int(raw) if raw else default
    except ValueError:
        return default


def float_param(request: HttpRequest, name: str) -> float | None:
    raw = request.GET.get(name, "")
    try:
        return float(raw) if raw else None
    except ValueError:
        return None


def date_param(request: HttpRequest, name: str) -> date | None:
    try:
        return date.fromisoformat(request.GET.get(name, ""))
    except ValueError:
        return None


def flag(request: HttpRequest, name: str) -> bool:
    return request.GET.get(name, "").lower() in {"1", "true", "yes", "on"}
