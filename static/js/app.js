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
      event.preventDefault();
      if (search) { search.focus(); search.select(); } else { window.location.href = "/search/"; }
    } else if (key === "j") {
      select(1);
    } else if (key === "k") {
      select(-1);
    } else if (key === "Enter") {
      const el = items()[selected];
      if (el && el.dataset.href) window.location.href = el.dataset.href;
    } else if (key === "n" || key === "p") {
      jumpPrompt(key === "n" ? 1 : -1);
    } else if (key === "g") {
      pendingG = true;
    } else if (key === "?") {
      const help = document.getElementById("key-help");
      if (help && !help.open) help.showModal();
    }
  });

  // n / p: the next or previous prompt below or above the top of the viewport.
  function jumpPrompt(direction) {
    const prompts = Array.from(document.querySelectorAll("[data-prompt]"));
    const top = window.scrollY + 80;
    const target = direction > 0
      ? prompts.find((el) => el.getBoundingClientRect().top + window.scrollY > top + 5)
      : prompts.reverse().find((el) => el.getBoundingClientRect().top + window.scrollY < top - 5);
    if (target) {
      target.scrollIntoView({ block: "start" });
      if (target.id) history.replaceState(null, "", "#" + target.id);
    }
  }

  // Live follow pauses when the reader scrolls back up, and resumes on request.
  let livePaused = false;
  const resume = document.querySelector("[data-live-resume]");
  const badge = document.querySelector("[data-live]");
  function nearBottom() {
    return window.innerHeight + window.scrollY >= document.body.scrollHeight - 400;
  }
  window.addEventListener("scroll", () => {
    if (!badge) return;
    const paused = !nearBottom();
    if (paused !== livePaused) {
      livePaused = paused;
      badge.textContent = paused ? "LIVE paused" : "● LIVE";
      if (resume) resume.hidden = !paused;
      const poller = document.querySelector("#turn-poller, #conversation-poller");
      if (!paused && poller) htmx.trigger(poller, "resume");
    }
  }, { passive: true });
  if (resume) {
    resume.addEventListener("click", () => {
      window.scrollTo(0, document.body.scrollHeight);
      const poller = document.querySelector("#turn-poller, #conversation-poller");
      if (poller) htmx.trigger(poller, "resume");
    });
  }
  document.addEventListener("htmx:afterSwap", (event) => {
    if (badge && !livePaused && event.detail.target && ["turn-poller", "conversation-poller"].includes(event.detail.target.id)) {
      window.scrollTo(0, document.body.scrollHeight);
    }
  });

  // Timestamps arrive as UTC text in <time datetime> (readable without this script); shown here in
  // the browser's time zone, the UTC text kept as the tooltip. New fragments get the same on htmx:load.
  const localTime = new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "2-digit", day: "2-digit",
    hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZoneName: "short",
  });
  function localiseTimes(root) {
    root.querySelectorAll("time[data-local][datetime]").forEach((el) => {
      const when = new Date(el.getAttribute("datetime"));
      if (isNaN(when.getTime())) return;
      const part = {};
      localTime.formatToParts(when).forEach((p) => { part[p.type] = p.value; });
      // The same shape as the UTC text (2026-02-10 21:11:56), in the reader's zone.
      el.textContent = `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}:${part.second} ${part.timeZoneName || ""}`.trim();
      el.removeAttribute("data-local");
    });
  }
  localiseTimes(document);
  document.addEventListener("htmx:load", (event) => localiseTimes(event.detail.elt));

  // Code boxes past a page's highlighting budget arrive plain, with a note saying so (readable
  // without this script) and the URL of their coloured version, fetched when the box comes near the
  // viewport. A box inside a closed <details> has no layout, so it waits until it is opened.
  const colourer = "IntersectionObserver" in window
    ? new IntersectionObserver((seen) => {
      seen.forEach((entry) => {
        if (!entry.isIntersecting) return;
        colourer.unobserve(entry.target);
        colour(entry.target);
      });
    }, { rootMargin: "800px 0px" })
    : null;
  function colour(box) {
    const url = box.dataset.colourUrl;
    if (!url || !url.startsWith("/")) return;
    fetch(url, { credentials: "same-origin" })
      .then((response) => (response.ok ? response.text() : null))
      .then((html) => {
        if (!html || !box.isConnected) return;
        const holder = document.createElement("template");
        holder.innerHTML = html.trim();
        const fresh = holder.content.firstElementChild;
        if (!fresh) return;
        // A "show all" the reader opened before the colours came stays open.
        const opened = box.querySelector("details.show-all[open]");
        const again = fresh.querySelector("details.show-all");
        if (opened && again) again.open = true;
        box.replaceWith(fresh);
      })
      .catch(() => {}); // the plain box and its note stay
  }
  function watchCode(root) {
    if (colourer) root.querySelectorAll("[data-colour-url]").forEach((box) => colourer.observe(box));
  }
  watchCode(document);
  document.addEventListener("htmx:load", (event) => watchCode(event.detail.elt));

  // Whole table rows are clickable; the link inside stays the real, keyboard-reachable target.
  document.addEventListener("click", (event) => {
    const row = event.target.closest("tr[data-href]");
    if (row && !event.target.closest("a, button, input, select")) window.location.href = row.dataset.href;
  });

  // Live pollers pause in hidden tabs and while the reader looks back: a trigger filter would
  // need eval, which the CSP forbids. A paused poller waits for `resume` (or the tab to show).
  document.addEventListener("htmx:beforeRequest", (event) => {
    const elt = event.detail.elt;
    if (["turn-poller", "conversation-poller"].includes(elt.id) && livePaused) {
      event.preventDefault();
      return;
    }
    if (document.visibilityState === "hidden" && elt.classList.contains("poller")) {
      event.preventDefault();
      const elt = event.detail.elt;
      document.addEventListener("visibilitychange", function resume() {
        if (document.visibilityState === "visible") {
          document.removeEventListener("visibilitychange", resume);
          htmx.trigger(elt, "resume");
        }
      });
    }
  });
})();
