"""Relevance labelling in a browser, on the sample: from the effectiveness page to a way, its sample
of fires labelled with the keyboard alone (1/2/3 label, the next fire follows), the progress counted,
and the way's precision with its interval shown; the page still readable at phone width."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from introspect.models import LabelAction, RelevanceLabel

pytestmark = pytest.mark.django_db(transaction=True)
WAY = "softwaredev/delivery/commits"


def sign_in_viewer(tab) -> None:
    """vera has an account and no permission at all: labelling needs none."""
    get_user_model().objects.create_user("vera", password="correct horse battery")
    tab.go("/accounts/login/?next=/ways/effectiveness/")
    tab.page.fill("input[name=username]", "vera")
    tab.page.fill("input[name=password]", "correct horse battery")
    tab.page.click("button[type=submit]")
    tab.page.wait_for_url("**/ways/effectiveness/")


def test_a_viewer_labels_five_sampled_fires_by_keyboard_and_sees_precision(tab, expect):
    sign_in_viewer(tab)
    page = tab.page
    expect(page.locator("#relevance")).to_contain_text("No labels yet")
    page.locator("table.effect").get_by_role("link", name=WAY, exact=True).click()
    page.wait_for_url(f"**/ways/{WAY}/")
    page.get_by_role("link", name=re.compile("^Effectiveness")).click()
    page.wait_for_url(re.compile(r"/ways/effectiveness/\?way="))
    page.locator("#relevance").get_by_role("link", name="Label a sample of these fires").click()
    page.wait_for_url(re.compile(r"/ways/labels/\?way="))
    progress = page.locator("#label-progress")
    expect(progress).to_contain_text(re.compile(r"^0 of \d+ labelled"))
    total = int(re.match(r"0 of (\d+)", progress.inner_text()).group(1))
    assert total >= 5
    for n, key in enumerate("12122", start=1):
        fire = page.locator("article.label-fire").get_attribute("data-fire")
        page.keyboard.press(key)
        expect(progress).to_contain_text(f"{n} of {total} labelled")
        assert page.locator("article.label-fire").get_attribute("data-fire") != fire  # on to the next
    verdicts = list(RelevanceLabel.objects.order_by("labelled_at").values_list("verdict", flat=True))
    assert verdicts == ["relevant", "irrelevant", "relevant", "irrelevant", "irrelevant"]
    assert LabelAction.objects.filter(user_name="vera", verb="label").count() == 5
    # j and k walk the sample; the back button goes to the fire labelled before.
    shown = page.locator("article.label-fire").get_attribute("id")
    page.keyboard.press("k")
    expect(page.locator("article.label-fire")).not_to_have_attribute("id", shown)
    page.keyboard.press("j")
    expect(page.locator("article.label-fire")).to_have_attribute("id", shown)
    page.locator(".crumbs").get_by_role("link", name="effectiveness").click()
    page.wait_for_url(re.compile(r"/ways/effectiveness/\?way="))
    # 2 relevant of 5 decided: 40 %, Wilson 95 % 12–77 %.
    expect(page.locator("#relevance [data-precision]")).to_contain_text("2 of 5 relevant · 40 % (12 %–77 %)")
    tab.shot("labels-effectiveness")
    page.set_viewport_size({"width": 390, "height": 900})
    page.go_back()
    page.wait_for_url(re.compile(r"/ways/labels/\?"))
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    tab.shot("labels-phone")
