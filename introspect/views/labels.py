"""The labelling page: a seeded sample of a frame's fires, one at a time, each labelled relevant,
irrelevant or unsure (with a note) by any signed-in person (queries/labels.py); and the labels as
JSONL. Plain forms and links: keys (static/js/labels.js) only press them."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from introspect import services
from introspect.documents.labels import label_line
from introspect.forms import LabelClearForm, LabelForm, LabelFrameForm
from introspect.queries.effectiveness import since_for
from introspect.queries.labels import CHANNELS, HIDDEN, frame_query, label_page
from introspect.queries.relevance import LabelFrame, export_rows
from lib.htmx import HtmxHttpRequest


def frame_of(data: dict) -> LabelFrame:
    return LabelFrame(
        project=data["project"] or None,
        days=data["days"],
        since=since_for(data["days"]),
        way=data["way"] or None,
        channel=data["channel"] or None,
    )


def page_context(request: HtmxHttpRequest, ask: dict, at: int | None, form: LabelForm | None = None) -> dict:
    user = request.user
    labeller = user.get_username() if user.is_authenticated else None
    page = label_page(frame=frame_of(ask), seed=ask["seed"], size=ask["size"], at=at, labeller=labeller)
    return {
        "page": page, "ask": ask, "channels": CHANNELS, "form": form, "labeller": labeller, "nav": "ways",
        "hidden": HIDDEN,
    }  # fmt: skip


@require_safe
def way_labels(request: HtmxHttpRequest) -> HttpResponse:
    ask = LabelFrameForm.read(request)
    return render(request, "introspect/way_labels.html", page_context(request, ask, ask["at"]))


@require_POST
@login_required
def way_label(request: HtmxHttpRequest) -> HttpResponse:
    """Label one fire as the person signed in (any account, a viewer's too), then on to the next."""
    ask = posted_frame(request)
    form = LabelForm(request.POST)
    if not form.is_valid():
        context = page_context(request, ask, ask["at"], form)
        return render(request, "introspect/way_labels.html", context, status=400)
    try:
        services.relevance_label_set(
            fire=form.cleaned_data["fire"],
            verdict=form.cleaned_data["verdict"],
            note=form.cleaned_data["note"],
            user=request.user,
            frame=urlencode(frame_query(frame_of(ask), ask["seed"], ask["size"])),
        )
    except services.UnknownFire as exc:
        raise Http404(str(exc)) from None
    # Post/redirect/get to the next fire: the back button walks the fires already labelled.
    return labels_at(ask, min((ask["at"] or 1) + 1, ask["size"]))


@require_POST
@login_required
def way_label_delete(request: HtmxHttpRequest) -> HttpResponse:
    """Clear the signed-in person's own label of one fire (audited), and show that fire again."""
    ask = posted_frame(request)
    form = LabelClearForm(request.POST)
    if not form.is_valid():
        return render(
            request, "introspect/way_labels.html", page_context(request, ask, ask["at"]), status=400
        )
    services.relevance_label_delete(fire=form.cleaned_data["fire"], user=request.user)
    return labels_at(ask, ask["at"] or 1)


def posted_frame(request: HtmxHttpRequest) -> dict:
    """The frame a label form was posted from (its hidden fields), as the form cleaned them."""
    frame_form = LabelFrameForm(request.POST)
    frame_form.is_valid()
    return frame_form.cleaned_data


def labels_at(ask: dict, at: int) -> HttpResponse:
    """The labelling page of the same frame, at sampled fire `at`."""
    query = frame_query(frame_of(ask), ask["seed"], ask["size"])
    return redirect(f"{reverse('introspect:way-labels')}?{urlencode(query | {'at': at})}")


@require_safe
def way_labels_export(request: HtmxHttpRequest) -> HttpResponse:
    ask = LabelFrameForm.read(request)
    body = b"".join(label_line(row) for row in export_rows(frame_of(ask)))
    response = HttpResponse(body, content_type="application/x-ndjson")
    response["Content-Disposition"] = 'attachment; filename="relevance-labels.jsonl"'
    return response
