"""Decision records: the index, one record, and a reviewer's status changes written to its file."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST, require_safe

from ledger import forms
from ledger.models import AdrRecord
from ledger.queries import records as queries
from ledger.services import acts
from ledger.services import records as services
from ledger.views import act_on, conflict_shown, reviewer_required
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
    return card(request, record_context(get_object_or_404(AdrRecord, pk=pk)))


def card(request: HtmxHttpRequest, context: dict, *, status: int = 200) -> HttpResponse:
    """The record's card for htmx, its whole page otherwise."""
    return render_page(request, "ledger/record_detail.html", context, fragment="record-card", status=status)


def changed(request: HtmxHttpRequest, pk: int, form, act, *, trigger: bool = True) -> HttpResponse:
    """A change written to one record's file, answered with the card or back to its page (PRG).

    `act(record, data, reviewer)` returns the record as written and what to say. A refusal is the
    card with why; a stale form or a question someone else settled is a 409 with the record as it
    now stands."""
    record = get_object_or_404(AdrRecord, pk=pk)

    def written(done: tuple[AdrRecord, str]) -> HttpResponse:
        record, message = done
        if not wants_fragment(request):
            return redirect("ledger:record-detail", pk=record.pk)
        response = card(request, record_context(record, message=message))
        if trigger:  # the nav's decision count listens for this and refetches itself (templates/base.html)
            response["HX-Trigger"] = "decisions-changed"
        return response

    return act_on(
        request,
        form,
        lambda data, who: act(record, data, who),
        answer=written,
        refused=lambda form, reason: card(request, record_context(record, error=form_error(form))),
        conflict=lambda exc: conflict(request, pk, exc),
    )


def conflict(request: HtmxHttpRequest, pk: int, exc: acts.Conflict) -> HttpResponse:
    """The record as its file now says it (the service re-read it), with why nothing was written and
    the person's typed answer kept in its form (`retry`). Still a 409 for any client; htmx swaps it
    (the htmx-config in templates/base.html), a plain form POST gets the whole page."""
    context = record_context(AdrRecord.objects.get(pk=pk), error=str(exc), retry=request.POST)
    return conflict_shown(request, card(request, context, status=409))


def form_error(form) -> str:
    return " ".join(str(e) for errors in form.errors.values() for e in errors)


@require_POST
@reviewer_required
def record_status(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    def act(record: AdrRecord, data: dict, who: acts.Reviewer) -> tuple[AdrRecord, str]:
        record = services.record_set_status(
            record=record,
            verb=data["verb"],
            reviewer=who,
            successor=AdrRecord.objects.filter(pk=parse_int(data["successor"])).first(),
            loaded_sha256=data["loaded_sha256"],
            note=data["note"],
        )
        return record, f"Written: {record.canonical_id} is now {record.status}."

    return changed(request, pk, forms.StatusForm(request.POST), act, trigger=False)


@require_POST
@reviewer_required
def record_rule(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    def act(record: AdrRecord, data: dict, who: acts.Reviewer) -> tuple[AdrRecord, str]:
        record = services.record_rule(
            record=record,
            key=data["key"],
            chosen=data["chosen"],
            reason=data["reason"],
            reviewer=who,
            loaded_sha256=data["loaded_sha256"],
        )
        return record, f"Written: {data['key']} ruled option {data['chosen']}."

    return changed(request, pk, forms.RuleForm(request.POST), act)


@require_POST
@reviewer_required
def record_resolve(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    def act(record: AdrRecord, data: dict, who: acts.Reviewer) -> tuple[AdrRecord, str]:
        record = services.record_resolve_fork(
            record=record,
            key=data["key"],
            ruling=data["ruling"],
            reason=data["reason"],
            reviewer=who,
            loaded_sha256=data["loaded_sha256"],
        )
        return record, f"Written: {data['key']} resolved by {data['ruling']}."

    return changed(request, pk, forms.ResolveForm(request.POST), act)
