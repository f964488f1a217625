"""Who is looking: the signed-in user, else the browser's viewer cookie."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.http import HttpResponse

from lib import viewers


def test_it_names_a_browser_by_its_cookie(rf):
    request = rf.get("/", headers={"Cookie": f"{viewers.COOKIE}={'a' * 32}"})
    request.user = AnonymousUser()
    assert viewers.viewer_of(request) == viewers.Viewer(browser="a" * 32)
    assert viewers.viewer_of(request).known


def test_it_gives_a_browser_without_a_valid_cookie_a_fresh_one(rf):
    request = rf.get("/", headers={"Cookie": f"{viewers.COOKIE}=short"})
    request.user = AnonymousUser()
    viewer = viewers.viewer_of(request)
    assert viewer.new and not viewer.known and viewers.TOKEN.fullmatch(viewer.browser)
    response = viewers.remember(request, HttpResponse(), viewer)
    cookie = response.cookies[viewers.COOKIE]
    assert cookie.value == viewer.browser and cookie["httponly"] and cookie["max-age"] == viewers.MAX_AGE


def test_it_names_a_signed_in_viewer_by_the_user_and_sets_no_cookie(rf):
    request = rf.get("/", headers={"Cookie": f"{viewers.COOKIE}={'a' * 32}"})
    request.user = User(pk=7, username="ada")
    viewer = viewers.viewer_of(request)
    assert viewer == viewers.Viewer(user_id=7)
    assert viewers.COOKIE not in viewers.remember(request, HttpResponse(), viewer).cookies
