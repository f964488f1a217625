"""Applying a proposal from a way's page: the `refire:` line of its file, or a project toggle in
`<project>/.claude/ways.yaml` (introspect/services/proposals.py). A reviewer's POST only, with its
CSRF token, from a plain form: done, the page again with what was written (303); the file changed
since the page was drawn, the page again as it is now, saying why (409); refused, the page saying
why and nothing written (400)."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from introspect import views
from introspect.forms import RefireApplyForm, ToggleApplyForm
from introspect.models import Project, Way
from introspect.services import proposals as service
from introspect.views.ways import way_context
from lib.htmx import HtmxHttpRequest, render_page

reviewer_required = views.reviewer_required(
    "Your account may read but not change way files. Ask an admin for the reviewer role "
    "(manage.py adduser NAME --reviewer)."
)


def page_saying(request: HtmxHttpRequest, way_id: str, message: str, status: int) -> HttpResponse:
    """The way page drawn again (so its hash and diff are the file's now), `message` at its proposals."""
    context = way_context(way_id) | {"proposal_error": message}
    return render_page(
        request, "introspect/way_detail.html", context, fragment="way-proposals", status=status
    )


def act_on(request: HtmxHttpRequest, way_id: str, form, act) -> HttpResponse:
    """The form checked, then `act(cleaned data)` run and answered: written (a redirect to the page
    saying what), stale (409) or refused (400), the page saying why."""
    if not form.is_valid():
        return page_saying(request, way_id, "Nothing was written: the form was incomplete.", 400)
    try:
        done = act(form.cleaned_data)
    except service.Stale as exc:
        return page_saying(request, way_id, f"Nothing was written: {exc}.", 409)
    except service.Refused as exc:
        return page_saying(request, way_id, f"Nothing was written: {exc}.", 400)
    url = reverse("introspect:way-detail", args=[way_id])
    return redirect(f"{url}?applied={done.pk}#way-proposals", permanent=False)


@require_POST
@reviewer_required
def apply_refire(request: HtmxHttpRequest, way_id: str) -> HttpResponse:
    def act(data: dict):
        way = Way.objects.filter(pk=data["way_pk"], way_id=way_id).first()
        if way is None:
            raise Http404("no such way file")
        return service.apply_refire(
            way=way, loaded_sha256=data["loaded_sha256"], proposed=data["proposed"], user=request.user
        )

    return act_on(request, way_id, RefireApplyForm(request.POST), act)


@require_POST
@reviewer_required
def apply_toggle(request: HtmxHttpRequest, way_id: str) -> HttpResponse:
    def act(data: dict):
        project = Project.objects.filter(pk=data["project_pk"]).first()
        if project is None:
            raise Http404("no such project")
        # The service recomputes the evidence from the labels; the posted text is never evidence.
        return service.apply_toggle(
            project=project, way_id=way_id, loaded_sha256=data["loaded_sha256"], user=request.user
        )

    return act_on(request, way_id, ToggleApplyForm(request.POST), act)
