// waysweb keyboard shortcuts, row navigation and polite live polling.
// Loaded with the page's CSP nonce; no inline handlers, no eval (htmx allowEval is off).
(function () {
  "use strict";

  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  function items() {
    const rows = document.querySelectorAll("[data-nav-rows] tbody tr[data-href]");
    return rows.length ? Array.from(rows) : Array.from(document.querySelectorAll("[data-nav-item]"));
  }

  let selected = -1;
  function select(delta) {
    const list = items();
    if (!list.length) return;
    list.forEach((el) => el.classList.remove("is-selected"));
    selected = Math.max(0, Math.min(list.length - 1, selected + delta));
    const el = list[selected];
    el.classList.add("is-selected");
    el.scrollIntoView({ block: "nearest" });
    if (el.id) history.replaceState(null, "", "#" + el.id);
  }

  let pendingG = false;
  document.addEventListener("keydown", (event) => {
    if (event.metaKey || event.ctrlKey || event.altKey || typing(event.target)) {
      if (event.key === "Escape" && typing(event.target)) event.target.blur();
      return;
    }
    const key = event.key;
    if (pendingG) {
      pendingG = false;
      if (key === "s") { window.location.href = "/"; return; }
    }
    if (key === "/") {
      const search = document.querySelector("[data-shortcut='/']");
      if (search) { event.preventDefault(); search.focus(); search.select(); }
    } else if (key === "j") {
      select(1);
    } else if (key === "k") {
      select(-1);
    } else if (key === "Enter") {
      const el = items()[selected];
      if (el && el.dataset.href) window.location.href = el.dataset.href;
    } else if (key === "g") {
      pendingG = true;
    } else if (key === "?") {
      const help = document.getElementById("key-help");
      if (help && !help.open) help.showModal();
    }
  });

  // Whole table rows are clickable; the link inside stays the real, keyboard-reachable target.
  document.addEventListener("click", (event) => {
    const row = event.target.closest("tr[data-href]");
    if (row && !event.target.closest("a, button, input, select")) window.location.href = row.dataset.href;
  });

  // Live pollers pause in hidden tabs: a trigger filter would need eval, which the CSP forbids.
  document.addEventListener("htmx:beforeRequest", (event) => {
    if (document.visibilityState === "hidden" && event.detail.elt.classList.contains("poller")) {
      event.preventDefault();
      const elt = event.detail.elt;
      document.addEventListener("visibilitychange", function resume() {
        if (document.visibilityState === "visible") {
          document.removeEventListener("visibilitychange", resume);
          htmx.trigger(elt, "load");
        }
      });
    }
  });
})();
