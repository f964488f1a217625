"""Claude Code's auto-memory: the projects that have one, one project's memory, and a reviewer's
word on a memory (promote to knowledge, mark wrong)."""

from __future__ import annotations

from dataclasses import replace

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from ledger import forms
from ledger.models import Memory
from ledger.queries import memory as queries
from ledger.services import memory as services
from ledger.views import act_on, reviewer_required
from lib.htmx import HtmxHttpRequest, wants_fragment


# Read views take GET and HEAD (require_safe): a HEAD is a GET without its body.
@require_safe
def memory_index(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "ledger/memory_index.html", {**queries.memory_index_page(), "nav": "memory"})


def with_forms(view: queries.MemoryView | None, **bound) -> queries.MemoryView | None:
    """The card with its decision forms: the bound ones of the POST it answers, else empty ones."""
    if view is None:
        return None
    return replace(
        view,
        promote_form=bound.get("promote_form") or forms.MemoryPromoteForm(),
        wrong_form=bound.get("wrong_form") or forms.MemoryWrongForm(),
        message=bound.get("message", ""),
    )


def project_context(slug: str, *, target: int | None = None, **bound) -> dict:
    page = queries.memory_project_page(slug)
    if page["index"] is None and not page["topics"]:
        raise Http404(f"no memory for {slug}")

    def formed(view: queries.MemoryView | None) -> queries.MemoryView | None:
        return with_forms(view, **(bound if view and view.memory.pk == target else {}))

    return {
        **page,
        "index": formed(page["index"]),
        "topics": [formed(view) for view in page["topics"]],
        "nav": "memory",
    }


@require_safe
def memory_project(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    return render(request, "ledger/memory_project.html", project_context(slug))


def answer(request: HtmxHttpRequest, memory: Memory, *, done: bool, **bound) -> HttpResponse:
    """The memory's card for htmx. A plain form: back to the project page at the memory when it
    worked (PRG), the page with the bound form when it did not."""
    # 200 even for a refusal: htmx 2 does not swap error responses by default (STYLE.md §3).
    if wants_fragment(request):
        view = with_forms(queries.memory_card(memory.pk), **bound)
        return render(request, "ledger/memory_project.html#memory-card", {"view": view})
    if done:
        return redirect(reverse("ledger:memory-project", args=[memory.project_slug]) + f"#memory-{memory.pk}")
    return render(
        request, "ledger/memory_project.html", project_context(memory.project_slug, target=memory.pk, **bound)
    )


@require_POST
@reviewer_required
def memory_promote(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    memory = get_object_or_404(Memory, pk=pk)
    return act_on(
        request,
        forms.MemoryPromoteForm(request.POST),
        lambda data, who: services.memory_promote(
            memory=memory, reviewer=who, evidence=data["evidence"], new_class=data["klass"]
        ),
        answer=lambda _: answer(
            request,
            memory,
            done=True,
            message="Promoted: a verified knowledge record now cites this memory and its turn.",
        ),
        refused=lambda form, reason: answer(request, memory, done=False, promote_form=form),
    )


@require_POST
@reviewer_required
def memory_mark_wrong(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    memory = get_object_or_404(Memory, pk=pk)
    return act_on(
        request,
        forms.MemoryWrongForm(request.POST),
        lambda data, who: services.memory_mark_wrong(memory=memory, reviewer=who, note=data["note"]),
        answer=lambda _: answer(
            request,
            memory,
            done=True,
            message="Marked wrong. The memory file is unchanged; Claude Code still reads it.",
        ),
        refused=lambda form, reason: answer(request, memory, done=False, wrong_form=form),
    )
