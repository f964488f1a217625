"""One place decides between a whole page and an htmx fragment, whatever the answer's status."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory
from django_htmx.middleware import HtmxDetails

from lib.htmx import render_page

pytestmark = pytest.mark.django_db


def request_with(headers: dict[str, str]):
    request = RequestFactory().get("/", headers=headers)
    request.htmx, request.user = HtmxDetails(request), AnonymousUser()
    return request


def test_it_answers_an_htmx_swap_with_the_fragment_and_the_status_asked_for():
    response = render_page(
        request_with({"HX-Request": "true"}), "base.html", {}, fragment="knowledge-count", status=409
    )
    assert response.status_code == 409 and response["Vary"] == "HX-Request"
    assert b"<html" not in response.content


def test_it_answers_a_boosted_navigation_with_the_whole_page():
    response = render_page(
        request_with({"HX-Request": "true", "HX-Boosted": "true"}),
        "base.html",
        {},
        fragment="knowledge-count",
    )
    assert response.status_code == 200 and b"<html" in response.content
