"""Decision records: the index, one record, and a reviewer's status changes written to its file."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST, require_safe

from ledger import forms
from ledger.models import AdrRecord
from ledger.queries import records as queries
from ledger.services import acts
from ledger.services import records as services
from ledger.views import conflict_shown, reviewer_required
from lib.htmx import HtmxHttpRequest, render_page, wants_fragment
from lib.params import parse_int


# Read views take GET and HEAD (require_safe, where STYLE.md §0 says require_GET): a HEAD is a GET
# without its body, and monitors, link checkers and `curl -I` send it.
@require_safe
def record_list(request: HtmxHttpRequest) -> HttpResponse:
    status, repo, q = (
        request.GET.get("status", ""),
        request.GET.get("repo", ""),
        request.GET.get("q", "").strip(),
    )
    open_only = request.GET.get("questions") == "open"
    context = {
        **queries.record_list_page(status=status, repo=repo, q=q[:200], open_only=open_only),
        "status": status,
        "repo": repo,
        "q": q,
        "open_only": open_only,
        "nav": "decisions",
    }
    return render_page(request, "ledger/record_list.html", context, fragment="record-results")


def record_context(record: AdrRecord, **extra) -> dict:
    return {"record": record, **queries.record_detail_page(record), "nav": "decisions", **extra}


@require_safe
def record_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    record = get_object_or_404(AdrRecord, pk=pk)
    return render_page(request, "ledger/record_detail.html", record_context(record), fragment="record-card")


@require_POST
@reviewer_required
def record_status(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    record = get_object_or_404(AdrRecord, pk=pk)
    verb = request.POST.get("verb", "")
    successor = AdrRecord.objects.filter(pk=parse_int(request.POST.get("successor"))).first()
    template = (
        "ledger/record_detail.html#record-card" if wants_fragment(request) else "ledger/record_detail.html"
    )
    try:
        record = services.record_set_status(
            record=record,
            verb=verb,
            reviewer=acts.Reviewer.of(request.user),
            successor=successor,
            loaded_sha256=request.POST.get("loaded_sha256", ""),
            note=request.POST.get("note", "").strip(),
        )
    except acts.Conflict as exc:
        return conflict(request, template, pk, exc)
    except acts.Refused as exc:
        return render(request, template, record_context(record, error=str(exc)))
    if not wants_fragment(request):
        return redirect("ledger:record-detail", pk=record.pk)
    return render(
        request,
        template,
        record_context(record, message=f"Written: {record.canonical_id} is now {record.status}."),
    )


def conflict(request: HtmxHttpRequest, template: str, pk: int, exc: acts.Conflict) -> HttpResponse:
    """The record as its file now says it (the service re-read it), with why nothing was written and
    the person's typed answer kept in its form (`retry`). Still a 409 for any client; htmx swaps it
    (the htmx-config in templates/base.html), a plain form POST gets the whole page."""
    context = record_context(AdrRecord.objects.get(pk=pk), error=str(exc), retry=request.POST)
    return conflict_shown(request, render(request, template, context, status=409))


def question_answer(request: HtmxHttpRequest, pk: int, act) -> HttpResponse:
    """Run a ruling or a fork's closing, and answer like a status change: the card, or back to the page.

    A stale form or a question someone else settled is a 409 with the record as it now stands."""
    record = get_object_or_404(AdrRecord, pk=pk)
    template = (
        "ledger/record_detail.html#record-card" if wants_fragment(request) else "ledger/record_detail.html"
    )
    try:
        record, message = act(record)
    except acts.Conflict as exc:
        return conflict(request, template, pk, exc)
    except acts.Refused as exc:
        return render(request, template, record_context(record, error=str(exc)))
    if not wants_fragment(request):
        return redirect("ledger:record-detail", pk=record.pk)
    response = render(request, template, record_context(record, message=message))
    # The nav's decision count listens for this and refetches itself (templates/base.html).
    response["HX-Trigger"] = "decisions-changed"
    return response


def form_error(form) -> str:
    return " ".join(str(e) for errors in form.errors.values() for e in errors)


@require_POST
@reviewer_required
def record_rule(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    form = forms.RuleForm(request.POST)

    def act(record: AdrRecord):
        if not form.is_valid():
            raise acts.Refused(form_error(form))
        data = form.cleaned_data
        record = services.record_rule(
            record=record,
            key=data["key"],
            chosen=data["chosen"],
            reason=data["reason"],
            reviewer=acts.Reviewer.of(request.user),
            loaded_sha256=data["loaded_sha256"],
        )
        return record, f"Written: {data['key']} ruled option {data['chosen']}."

    return question_answer(request, pk, act)


@require_POST
@reviewer_required
def record_resolve(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    form = forms.ResolveForm(request.POST)

    def act(record: AdrRecord):
        if not form.is_valid():
            raise acts.Refused(form_error(form))
        data = form.cleaned_data
        record = services.record_resolve_fork(
            record=record,
            key=data["key"],
            ruling=data["ruling"],
            reason=data["reason"],
            reviewer=acts.Reviewer.of(request.user),
            loaded_sha256=data["loaded_sha256"],
        )
        return record, f"Written: {data['key']} resolved by {data['ruling']}."

    return question_answer(request, pk, act)
