"""Ledger streams and the knowledge review queue. Reading is open; every write needs a reviewer."""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect, trigger_client_event

from introspect import queries as session_queries
from ledger import forms, queries, services
from ledger.models import KnowledgeRecord
from waysweb.htmx import HtmxHttpRequest, render_page, wants_fragment
from waysweb.params import int_param


def reviewer_required(view):
    """Logged in (else to the login page) and allowed to review (else 403): checked in the view."""
    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.has_perm("ledger.review_knowledge"):
            return HttpResponseForbidden("Your account may read but not review knowledge. Ask an admin for the "
                                         "reviewer role (manage.py adduser NAME --reviewer).")
        return view(request, *args, **kwargs)
    return wrapper


@require_GET
def ledger_index(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "ledger/ledger_index.html", {"projects": queries.ledger_projects(), "nav": "ledger"})


@require_GET
def ledger_stream(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    items = queries.ledger_stream(slug)
    if not items:
        raise Http404(f"no ledger entries for {slug}")
    return render(request, "ledger/ledger_stream.html", {"slug": slug, "items": items, "nav": "ledger"})


@require_GET
def candidate_list(request: HtmxHttpRequest) -> HttpResponse:
    filters = queries.QueueFilters(
        status=request.GET.get("status", "candidate"), klass=request.GET.get("class", ""),
        project=int_param(request, "project"), origin=request.GET.get("origin", ""),
        older_than=int_param(request, "older_than"),
    )
    page = queries.queue(filters, page=int_param(request, "page", 1) or 1)
    context = {
        "page": page, "filters": filters, "counts": queries.queue_counts(), "classes": KnowledgeRecord.CLASSES,
        "projects": queries.projects_with_knowledge(), "events": queries.pipeline_events(),
        "failures": queries.pipeline_failures(), "bulk_form": forms.BulkForm(queryset=KnowledgeRecord.objects.none()),
        "nav": "knowledge",
    }
    return render_page(request, "ledger/candidate_list.html", context, fragment="candidate-rows")


def candidate_context(record: KnowledgeRecord, **extra) -> dict:
    turns_page = None
    if record.session and record.turn_epochs:
        size = session_queries.TURNS_PER_PAGE
        first = record.turn_epochs[0]
        turns_page = first - (first - 1) % size
    return {
        "record": record, "actions": queries.audit_log(record), "similar": queries.similar(record),
        "turns_page": turns_page, "nav": "knowledge",
        "promote_form": extra.pop("promote_form", None) or forms.PromoteForm(
            initial={"klass": record.klass or "fact", "loaded_sha256": record.sha256}),
        "reject_form": extra.pop("reject_form", None) or forms.RejectForm(initial={"loaded_sha256": record.sha256}),
        "edit_form": extra.pop("edit_form", None) or forms.EditForm(
            initial={"title": record.title, "description": record.description, "loaded_sha256": record.sha256}),
        **extra,
    }


@require_GET
def candidate_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    record = get_object_or_404(KnowledgeRecord.objects.select_related("session", "ledger_entry"), pk=pk)
    return render_page(request, "ledger/candidate_detail.html", candidate_context(record), fragment="candidate-card")


def decided(request: HtmxHttpRequest, record: KnowledgeRecord, message: str) -> HttpResponse:
    """After a successful POST: the updated card for htmx, a redirect for a plain form (PRG)."""
    if not wants_fragment(request):
        return redirect("ledger:candidate-detail", pk=record.pk)
    response = render(request, "ledger/candidate_detail.html#candidate-card",
                      candidate_context(record, message=message))
    return trigger_client_event(response, "queue-changed")


def conflict(request: HtmxHttpRequest, exc: services.Conflict) -> HttpResponse:
    record = KnowledgeRecord.objects.get(pk=exc.record.pk)
    template = "ledger/candidate_detail.html#candidate-card" if wants_fragment(request) else "ledger/candidate_detail.html"
    response = render(request, template, candidate_context(record, error=str(exc)), status=409)
    if wants_fragment(request):
        response["HX-Reswap"] = "outerHTML"  # htmx 2 does not swap a 409 by itself; show the current state
    return response


def form_error(request: HtmxHttpRequest, record: KnowledgeRecord, **forms_) -> HttpResponse:
    # 200, not 4xx: htmx 2 does not swap error responses by default (STYLE.md §3).
    template = "ledger/candidate_detail.html#candidate-card" if wants_fragment(request) else "ledger/candidate_detail.html"
    return render(request, template, candidate_context(record, **forms_))


@require_POST
@reviewer_required
def candidate_promote(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    record = get_object_or_404(KnowledgeRecord, pk=pk)
    form = forms.PromoteForm(request.POST)
    if not form.is_valid():
        return form_error(request, record, promote_form=form)
    try:
        record = services.candidate_promote(
            record=record, reviewer=services.Reviewer.of(request.user), evidence=form.cleaned_data["evidence"],
            new_class=form.cleaned_data["klass"], loaded_sha256=form.cleaned_data["loaded_sha256"])
    except services.Conflict as exc:
        return conflict(request, exc)
    except services.Refused as exc:
        form.add_error(None, str(exc))
        return form_error(request, record, promote_form=form)
    return decided(request, record, "Promoted: written to curated/ as verified.")


@require_POST
@reviewer_required
def candidate_reject(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    record = get_object_or_404(KnowledgeRecord, pk=pk)
    form = forms.RejectForm(request.POST)
    if not form.is_valid():
        return form_error(request, record, reject_form=form)
    try:
        record = services.candidate_reject(
            record=record, reviewer=services.Reviewer.of(request.user), reason=form.cleaned_data["reason"],
            superseded_by=form.cleaned_data["superseded_by"].strip(), loaded_sha256=form.cleaned_data["loaded_sha256"])
    except services.Conflict as exc:
        return conflict(request, exc)
    except services.Refused as exc:
        form.add_error(None, str(exc))
        return form_error(request, record, reject_form=form)
    return decided(request, record, "Rejected: the candidate file now says superseded, with your reason.")


@require_POST
@reviewer_required
def candidate_edit(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    record = get_object_or_404(KnowledgeRecord, pk=pk)
    form = forms.EditForm(request.POST)
    if not form.is_valid():
        return form_error(request, record, edit_form=form)
    try:
        record = services.candidate_edit(
            record=record, reviewer=services.Reviewer.of(request.user), title=form.cleaned_data["title"],
            description=form.cleaned_data["description"], loaded_sha256=form.cleaned_data["loaded_sha256"])
    except services.Conflict as exc:
        return conflict(request, exc)
    except services.Refused as exc:
        form.add_error(None, str(exc))
        return form_error(request, record, edit_form=form)
    return decided(request, record, "Saved: the candidate file was rewritten.")


@require_POST
@reviewer_required
def candidate_bulk(request: HtmxHttpRequest) -> HttpResponse:
    pending = KnowledgeRecord.objects.filter(status=KnowledgeRecord.Status.CANDIDATE, present=True)
    form = forms.BulkForm(request.POST, queryset=pending)
    if not form.is_valid():
        return HttpResponse(f"Bulk action refused: {form.errors.as_text()}", status=400)
    verb, note = form.cleaned_data["verb"], form.cleaned_data["note"]
    if verb == "promote" and services.documents.transcript_like(note):
        return HttpResponse("Bulk action refused: the evidence reads like a transcript.", status=400)
    _, problems = services.candidates_bulk(records=list(form.cleaned_data["records"]), verb=verb,
                                           reviewer=services.Reviewer.of(request.user), note=note)
    target = reverse("ledger:candidate-list") + (f"?problems={len(problems)}" if problems else "")
    return HttpResponseClientRedirect(target) if request.htmx else redirect(target)


@require_POST
@reviewer_required
def candidate_merge(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    record = get_object_or_404(KnowledgeRecord, pk=pk)
    pending = KnowledgeRecord.objects.filter(status=KnowledgeRecord.Status.CANDIDATE, present=True)
    form = forms.MergeForm(request.POST, queryset=pending)
    if not form.is_valid():
        return form_error(request, record, merge_errors=form.errors)
    try:
        services.candidates_merge(keep=form.cleaned_data["keep"], duplicates=list(form.cleaned_data["duplicates"]),
                                  reviewer=services.Reviewer.of(request.user), evidence=form.cleaned_data["evidence"])
    except services.Conflict as exc:
        return conflict(request, exc)
    except services.Refused as exc:
        return form_error(request, record, error=str(exc))
    kept = form.cleaned_data["keep"]
    kept.refresh_from_db()
    return decided(request, kept, "Merged: kept one as verified, the others rejected as superseded by it.")


@require_GET
def audit(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "ledger/audit.html", {"actions": queries.audit_log(), "nav": "knowledge"})
