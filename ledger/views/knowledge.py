"""The knowledge review: the queue, one candidate, the audit trail, and a reviewer's decisions on them."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect, trigger_client_event

from introspect.queries import secret_masks
from ledger import forms
from ledger.models import KnowledgeRecord
from ledger.queries import knowledge as queries
from ledger.records import knowledge as knowledge_format
from ledger.services import acts
from ledger.services import knowledge as services
from ledger.services import records as record_services
from ledger.views import act_on, conflict_shown, reviewer_required
from lib.htmx import HtmxHttpRequest, render_page, wants_fragment
from lib.params import int_param

# `older_than` in days: further back than this, `now - timedelta(days=…)` would leave the calendar.
OLDEST_DAYS = 36_500


# Read views take GET and HEAD (require_safe, where STYLE.md §0 says require_GET): a HEAD is a GET
# without its body, and monitors, link checkers and `curl -I` send it.
@require_safe
def candidate_list(request: HtmxHttpRequest) -> HttpResponse:
    filters = queries.QueueFilters(
        status=request.GET.get("status", "candidate"),
        klass=request.GET.get("class", ""),
        project=int_param(request, "project"),
        origin=request.GET.get("origin", ""),
        older_than=int_param(request, "older_than", low=0, high=OLDEST_DAYS),
    )
    context = {
        "filters": filters,
        **queries.candidate_list_page(filters, page=int_param(request, "page", 1) or 1),
        "bulk_form": forms.BulkForm(queryset=KnowledgeRecord.objects.none()),
        "nav": "knowledge",
    }
    return render_page(request, "ledger/candidate_list.html", context, fragment="candidate-rows")


def candidate_context(record: KnowledgeRecord, **extra) -> dict:
    """The candidate page: its page query and the three decision forms (bound ones passed in `extra`)."""
    masks = secret_masks.Allowed()
    return {
        "record": record,
        **queries.candidate_detail_page(record),
        "nav": "knowledge",
        "promote_form": extra.pop("promote_form", None)
        or forms.PromoteForm(initial={"klass": record.klass or "fact", "loaded_sha256": record.sha256}),
        "reject_form": extra.pop("reject_form", None)
        or forms.RejectForm(initial={"loaded_sha256": record.sha256}),
        "edit_form": extra.pop("edit_form", None)
        or forms.EditForm(
            # Masked: a secret in a record's wording is shown to a reviewer only through an audited reveal
            # (saved as shown, the file then holds the mask in its place).
            initial={
                "title": masks.text(record.title),
                "description": masks.text(record.description),
                "loaded_sha256": record.sha256,
            }
        ),
        **extra,
    }


def card(request: HtmxHttpRequest, context: dict, *, status: int = 200) -> HttpResponse:
    """The candidate's card for htmx, its whole page otherwise."""
    return render_page(
        request, "ledger/candidate_detail.html", context, fragment="candidate-card", status=status
    )


@require_safe
def candidate_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    record = get_object_or_404(KnowledgeRecord.objects.select_related("session", "ledger_entry"), pk=pk)
    return card(request, candidate_context(record))


def decided(request: HtmxHttpRequest, record: KnowledgeRecord, message: str) -> HttpResponse:
    """After a successful POST: the updated card for htmx, a redirect for a plain form (PRG)."""
    if not wants_fragment(request):
        return redirect("ledger:candidate-detail", pk=record.pk)
    response = card(request, candidate_context(record, message=message))
    return trigger_client_event(response, "queue-changed")


def conflict(
    request: HtmxHttpRequest, record: KnowledgeRecord, exc: acts.Conflict, *, form=None, form_key=""
) -> HttpResponse:
    """The card as the file now says it (the service re-read it), with why nothing was done. Still a
    409 for any client; htmx swaps it (the htmx-config in templates/base.html), a plain form POST
    gets the whole page. `form`, the one submitted, comes back holding what the person typed."""
    record = KnowledgeRecord.objects.select_related("session", "ledger_entry").get(pk=record.pk)
    # A merge's conflict may be on one of the duplicates: say which, on the page the person is on.
    error = str(exc) if exc.record.pk == record.pk else f"{exc.record.record_id}: {exc}"
    forms_ = {form_key: retyped(form, record)} if form is not None else {}
    return conflict_shown(
        request, card(request, candidate_context(record, error=error, **forms_), status=409)
    )


def retyped(form, record: KnowledgeRecord):
    """An unbound copy of a submitted form holding what the person typed, loaded against the file's
    current hash: after a conflict they decide again without typing it again."""
    return type(form)(initial={**form.cleaned_data, "loaded_sha256": record.sha256})


def form_error(request: HtmxHttpRequest, record: KnowledgeRecord, **forms_) -> HttpResponse:
    # 200, not 4xx: htmx 2 does not swap error responses by default (STYLE.md §3).
    return card(request, candidate_context(record, **forms_))


def decide(request: HtmxHttpRequest, pk: int, form_class, form_key: str, act, done: str) -> HttpResponse:
    """A decision on one record: its form, bound again with what the person typed when it comes back."""
    record = get_object_or_404(KnowledgeRecord, pk=pk)
    form = form_class(request.POST)
    return act_on(
        request,
        form,
        lambda data, who: act(record, who, data),
        answer=lambda decided_record: decided(request, decided_record, done),
        refused=lambda form, reason: form_error(request, record, **{form_key: form}),
        conflict=lambda exc: conflict(request, record, exc, form=form, form_key=form_key),
    )


@require_POST
@reviewer_required
def candidate_promote(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return decide(
        request,
        pk,
        forms.PromoteForm,
        "promote_form",
        lambda record, who, data: services.candidate_promote(
            record=record,
            reviewer=who,
            evidence=data["evidence"],
            new_class=data["klass"],
            loaded_sha256=data["loaded_sha256"],
        ),
        "Promoted: written to curated/ as verified.",
    )


@require_POST
@reviewer_required
def candidate_reject(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    successor = request.POST.get("superseded_by", "").strip()
    return decide(
        request,
        pk,
        forms.RejectForm,
        "reject_form",
        lambda record, who, data: services.candidate_reject(
            record=record,
            reviewer=who,
            reason=data["reason"],
            superseded_by=data["superseded_by"].strip(),
            loaded_sha256=data["loaded_sha256"],
        ),
        f"Rejected: superseded by {successor}, with your reason."
        if successor
        else "Rejected: the candidate stays under candidates/ as rejected, with your reason.",
    )


@require_POST
@reviewer_required
def candidate_edit(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return decide(
        request,
        pk,
        forms.EditForm,
        "edit_form",
        lambda record, who, data: services.candidate_edit(
            record=record,
            reviewer=who,
            title=data["title"],
            description=data["description"],
            loaded_sha256=data["loaded_sha256"],
        ),
        "Saved: the candidate file was rewritten.",
    )


@require_POST
@reviewer_required
def candidate_bulk(request: HtmxHttpRequest) -> HttpResponse:
    form = forms.BulkForm(request.POST, queryset=queries.pending_candidates())
    if not form.is_valid():
        return HttpResponse(f"Bulk action refused: {form.errors.as_text()}", status=400)
    verb, note = form.cleaned_data["verb"], form.cleaned_data["note"]
    if verb == "promote" and knowledge_format.transcript_like(note):
        return HttpResponse("Bulk action refused: the evidence reads like a transcript.", status=400)
    _, problems = services.candidates_bulk(
        records=list(form.cleaned_data["records"]),
        verb=verb,
        reviewer=acts.Reviewer.of(request.user),
        note=note,
    )
    target = reverse("ledger:candidate-list") + (f"?problems={len(problems)}" if problems else "")
    return HttpResponseClientRedirect(target) if request.htmx else redirect(target)


@require_POST
@reviewer_required
def candidate_merge(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    record = get_object_or_404(KnowledgeRecord, pk=pk)

    def merged(data: dict, who: acts.Reviewer) -> KnowledgeRecord:
        services.candidates_merge(
            keep=data["keep"], duplicates=list(data["duplicates"]), reviewer=who, evidence=data["evidence"]
        )
        data["keep"].refresh_from_db()
        return data["keep"]

    return act_on(
        request,
        forms.MergeForm(request.POST, queryset=queries.pending_candidates()),
        merged,
        answer=lambda kept: decided(
            request, kept, "Merged: kept one as verified, the others rejected as superseded by it."
        ),
        # The form's own errors are listed under the merge; the service's refusal is the card's message.
        refused=lambda form, reason: form_error(
            request, record, **({"error": reason} if reason else {"merge_errors": form.errors})
        ),
        conflict=lambda exc: conflict(request, record, exc),
    )


@require_safe
def knowledge_count(request: HtmxHttpRequest) -> HttpResponse:
    # The nav's badge alone: the header context processor counts the candidates in its one query.
    return render(request, "base.html#knowledge-count", {})


@require_safe
def audit_list(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "ledger/audit_list.html", {**queries.audit_list_page(), "nav": "knowledge"})


@require_POST
@reviewer_required
def record_from_knowledge(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    knowledge = get_object_or_404(KnowledgeRecord, pk=pk)
    try:
        record = record_services.record_from_knowledge(
            knowledge=[knowledge],
            directory=request.POST.get("directory", ""),
            reviewer=acts.Reviewer.of(request.user),
        )
    except (acts.Conflict, acts.Refused) as exc:
        return form_error(request, knowledge, error=str(exc))
    target = reverse("ledger:record-detail", args=[record.pk])
    return HttpResponseClientRedirect(target) if request.htmx else redirect(target)
