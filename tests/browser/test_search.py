"""Searching the sample in a real browser: type a term, narrow to one kind, read hits grouped by session."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.django_db(transaction=True)]


def test_it_searches_narrows_by_kind_and_groups_by_session(tab):
    tab.go("/search/")
    tab.page.fill("#q", "test")
    tab.page.wait_for_selector(".search-group")
    everything = tab.page.locator(".search-hit").count()
    kinds = set(tab.page.locator(".search-hit .badge--muted").all_inner_texts())
    assert everything > 1 and len(kinds) > 1

    tab.page.check("input[name=kind][value=result]")
    tab.page.wait_for_url("**kind=result**")
    tab.page.wait_for_function(
        "() => [...document.querySelectorAll('.search-hit .badge--muted')]"
        ".every(b => b.textContent.startsWith('tool output'))"
    )

    groups = tab.page.locator(".search-group")
    assert groups.count() >= 2  # the sample's test runs happen in more than one session
    for n in range(groups.count()):
        head = groups.nth(n).locator("h2")
        assert head.locator("a").get_attribute("href").startswith("/sessions/")
        assert head.locator("time").count() == 1
        assert groups.nth(n).locator(".search-hit").count() >= 1
    tab.shot("search-kind-filter")

    # The address is the result: reloading it shows the same filtered page, the box still ticked.
    tab.page.reload()
    assert tab.page.locator("input[name=kind][value=result]").is_checked()
    assert set(tab.page.locator(".search-hit .badge--muted").all_inner_texts()) == {"tool output"}

    first = tab.page.locator(".search-hit a").first
    target = first.get_attribute("href")
    first.click()
    # ?u= is answered with the page of the entry's turn, so only the session path is certain.
    tab.page.wait_for_url(lambda url: target.split("?")[0] in url and "/search/" not in url)
    assert tab.page.locator(f"[id='{target.split('#')[1]}']").count() == 1


def test_identical_tool_outputs_of_a_session_are_one_hit_with_a_count(tab):
    # "updated successfully" is a plain word to both engines (PostgreSQL's parser reads a path such
    # as tests/test_audit.py as one token, so "test" finds different lines there than FTS5 does).
    tab.go("/search/?q=successfully&kind=result")
    repeats = tab.page.locator(".search-repeat")
    assert repeats.count() >= 1
    assert all(text.startswith("×") for text in repeats.all_inner_texts())
