// Tool calls collapsed to one line each, or all open: the page-wide toggle of the session and
// subagent pages. Each call is a <details data-tool-card> (it opens and closes by itself without
// this script); the choice is kept in a cookie the server reads (views/sessions.py TOOLS_COOKIE),
// so the next pages, live entries and later visits are drawn collapsed or open from the start.
// Kept apart from app.js (keys, live follow): this file only knows tool cards.
(function () {
  "use strict";
  // A boosted navigation (htmx) runs this file again with the new page: set up once, show the
  // new page's toggle each time.
  if (window.waysTools) { window.waysTools(); return; }
  const COOKIE = "waysweb-tools";
  const YEAR = 365 * 24 * 3600;

  function collapsed() {
    return document.cookie.split("; ").includes(COOKIE + "=collapsed");
  }

  function remember(collapse) {
    document.cookie = collapse
      ? `${COOKIE}=collapsed; path=/; max-age=${YEAR}; SameSite=Lax`
      : `${COOKIE}=; path=/; max-age=0; SameSite=Lax`;
  }

  function label(button, collapse) {
    button.textContent = collapse ? "expand all tool calls" : "collapse all tool calls";
    button.setAttribute("aria-pressed", collapse ? "true" : "false");
  }

  function showToggles() {
    document.querySelectorAll("[data-tools-toggle]").forEach((button) => {
      label(button, collapsed());
      button.hidden = false;
    });
  }

  // A link to something inside a collapsed call (a search hit on its result, a permalink) opens it.
  function openTarget() {
    if (!location.hash) return;
    let target = null;
    try { target = document.querySelector(location.hash); } catch (error) { return; }
    for (let card = target && target.closest("details[data-tool-card]"); card; card = card.parentElement.closest("details[data-tool-card]")) {
      card.open = true;
    }
    if (target) target.scrollIntoView({ block: "start" });
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("[data-tools-toggle]");
    if (!button) return;
    const collapse = !collapsed();
    remember(collapse);
    document.querySelectorAll("details[data-tool-card]").forEach((card) => { card.open = !collapse; });
    document.querySelectorAll("[data-tools-toggle]").forEach((each) => label(each, collapse));
  });
  function ready() { showToggles(); openTarget(); }
  window.waysTools = ready;
  window.addEventListener("hashchange", openTarget);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
