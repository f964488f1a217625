"""The Secrets page, and the two acts on a finding: revealing its value, marking it no secret.

Reading the page is open (it shows masks only); both acts need the reviewer role, as rulings do
(ledger/views: `ledger.review_knowledge`, given by `manage.py adduser NAME --reviewer`).
"""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.html import format_html
from django.views.decorators.http import require_POST, require_safe

from introspect import views
from introspect.models import SecretFinding
from introspect.queries import secret_findings
from lib.htmx import HtmxHttpRequest

reviewer_required = views.reviewer_required(
    "Only a reviewer may reveal a secret or mark one a false positive."
)


def can_reveal(request: HtmxHttpRequest) -> bool:
    """Whether a page offers this reader a button revealing each secret it masks: a reviewer, on a
    machine whose database holds the values (team mode stores them masked)."""
    return request.user.has_perm(views.REVIEWER) and not settings.WAYSWEB_SECRETS_MASKED_ONLY


@require_safe
def secrets_list(request: HtmxHttpRequest) -> HttpResponse:
    page = secret_findings.secrets_page(reviewer=request.user.has_perm(views.REVIEWER))
    context = {"page": page, "nav": "secrets"}
    return render(request, "introspect/secrets.html", context)


@require_POST
@reviewer_required
def secret_reveal(request: HtmxHttpRequest, finding_id: int) -> HttpResponse:
    """The value of one finding, audited; never cached, never in an export (exports mask as they write)."""
    try:
        value = secret_findings.reveal(finding_id, request.user)
    except SecretFinding.DoesNotExist:
        raise Http404("no such finding") from None
    except secret_findings.NotRevealable as exc:
        response = HttpResponse(format_html('<span class="muted">{}</span>', str(exc)), status=200)
    else:
        response = HttpResponse(format_html('<code class="secret-revealed">{}</code>', value))
    response["Cache-Control"] = "no-store"
    return response


@require_POST
@reviewer_required
def secret_not_a_secret(request: HtmxHttpRequest, finding_id: int) -> HttpResponse:
    try:
        secret_findings.mark_false_positive(finding_id, request.user)
    except SecretFinding.DoesNotExist:
        raise Http404("no such finding") from None
    return redirect("introspect:secrets")
