"""The effectiveness page in a browser, on the sample plus the effectiveness corpus: readable at
desktop and phone width in both themes (nothing wider than the screen), the strips drawn, no
console error; screenshots kept for a person to look at."""

from __future__ import annotations

import pytest

from tests.browser.conftest import ARTIFACTS
from tests.conftest import Home
from tests.introspect import effectiveness_corpus as corpus

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize(("device", "width"), [("desktop", 1280), ("phone", 390)])
def test_the_page_reads_at_each_width_and_theme(browser, live_server, sample_home, theme, device, width):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    corpus.build(Home(sample_home))
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=theme)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(live_server.url + "/ways/effectiveness/")
    # The page's own caveat, first under its title (the proposals' summary carries one of its own).
    assert page.locator(".correlation-note").first.is_visible()
    assert page.locator(".correlation-note").first.inner_text().startswith("Correlations, not effects.")
    assert page.locator("svg.ci-strip").count() >= 1
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.locator("table.effect details").first.evaluate("d => d.open = true")
    shot = ARTIFACTS / f"effectiveness-{device}-{theme}.png"
    page.screenshot(path=str(shot), full_page=True, clip={"x": 0, "y": 0, "width": width, "height": 1600})
    context.close()
    assert errors == []
