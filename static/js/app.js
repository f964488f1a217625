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
    const menu = document.querySelector(".menu-toggle[open]");
    if (event.key === "Escape" && menu) {
      menu.open = false;
      menu.querySelector("summary").focus();
      return;
    }
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

  // The header is sticky: a jump lands below it. layout.css reads --top-h (scroll-padding-top), kept
  // at the header's real height, which changes with the width and when the nav wraps.
  function header() { return document.querySelector("header.top"); }
  function headerBottom() {
    const top = header();
    return top ? top.getBoundingClientRect().bottom : 0;
  }
  const measured = "ResizeObserver" in window ? new ResizeObserver(measureHeader) : null;
  let watchedHeader = null;
  function measureHeader() {
    const top = header();
    if (!top) return;
    document.documentElement.style.setProperty("--top-h", `${Math.ceil(top.getBoundingClientRect().height)}px`);
    if (measured && top !== watchedHeader) {
      if (watchedHeader) measured.unobserve(watchedHeader);
      measured.observe(top);
      watchedHeader = top; // a boosted navigation brings a new header
    }
  }
  measureHeader();
  document.addEventListener("htmx:load", measureHeader);

  // The menu (narrow widths) closes when the reader clicks elsewhere.
  document.addEventListener("click", (event) => {
    const menu = document.querySelector(".menu-toggle[open]");
    if (menu && !event.target.closest(".menu-toggle, .top-menu")) menu.open = false;
  });

  // n / p: the next or previous prompt, its top just under the header. When the next prompt is not
  // loaded yet, the page's infinite-scroll link loads it first; before the first loaded prompt, the
  // previous page opens at the prompt before it. A prompt the page could not scroll up to (near the end)
  // stays the current one, so a second n goes on from it instead of finding it again.
  let current = null;
  let landedAt = null;
  let waiting = null; // a jump that waits for the next page to arrive
  const LAST_PROMPT = "waysweb-jump-last-prompt";

  function prompts() { return Array.from(document.querySelectorAll("[data-prompt]")); }

  function land(target) {
    if (current) current.classList.remove("is-current");
    target.scrollIntoView({ block: "start" });
    target.classList.add("is-current");
    current = target;
    landedAt = target.getBoundingClientRect().top;
    if (target.id) history.replaceState(null, "", "#" + target.id);
  }

  function nextPrompt(direction) {
    const list = prompts();
    if (current && current.isConnected && Math.abs(current.getBoundingClientRect().top - landedAt) < 2) {
      return list[list.indexOf(current) + direction] || null;
    }
    const line = headerBottom() + 8; // where a prompt lands (scroll-padding-top)
    if (direction > 0) return list.find((el) => el.getBoundingClientRect().top > line + 4) || null;
    return list.reverse().find((el) => el.getBoundingClientRect().top < line - 4) || null;
  }

  function jumpPrompt(direction) {
    if (waiting) return; // the next page is on its way; the jump happens when it lands
    const target = nextPrompt(direction);
    if (target) return land(target);
    if (direction > 0) {
      const more = document.querySelector("#conversation-more a[hx-get]");
      if (!more) return;
      waiting = more;
      setTimeout(() => { if (waiting === more) waiting = null; }, 10000); // never stuck on a lost answer
      // The link loads itself when revealed; asked now, it must not load a second time on scroll.
      if (!more.hasAttribute("data-hx-revealed")) {
        more.setAttribute("data-hx-revealed", "true");
        htmx.trigger(more, "revealed");
      }
    } else {
      const earlier = document.querySelector("#conversation a[rel=prev]");
      if (!earlier) return;
      // The earlier page may run on past this one's start: it lands on the prompt before ours.
      const first = prompts()[0];
      const wanted = { url: earlier.pathname + earlier.search, before: first ? first.id : "" };
      try { sessionStorage.setItem(LAST_PROMPT, JSON.stringify(wanted)); } catch (error) { /* lands at the top */ }
      window.location.href = earlier.href;
    }
  }

  document.addEventListener("htmx:afterSettle", () => {
    if (!waiting || waiting.isConnected) return;
    waiting = null;
    const target = nextPrompt(1);
    if (target) land(target);
  });
  ["htmx:responseError", "htmx:sendError"].forEach((name) => document.addEventListener(name, (event) => {
    if (waiting && event.detail.elt === waiting) waiting = null;
  }));

  // Arrived by p from the next page: open at the prompt before the one p was pressed on (this
  // page's last when that one is not on it).
  try {
    const wanted = JSON.parse(sessionStorage.getItem(LAST_PROMPT) || "null");
    if (wanted && wanted.url === location.pathname + location.search) {
      sessionStorage.removeItem(LAST_PROMPT);
      const list = prompts();
      const at = list.findIndex((el) => el.id === wanted.before);
      const target = at > 0 ? list[at - 1] : at === 0 ? null : list[list.length - 1];
      if (target) window.addEventListener("load", () => land(target), { once: true });
    }
  } catch (error) { /* storage refused, or not ours: the page opens at its top */ }

  // Live follow pauses when the reader scrolls back up: a bar at the bottom of the viewport says so
  // wherever the reader is, and its button (or scrolling back down) resumes.
  let livePaused = false;
  function livePoller() { return document.querySelector("#turn-poller, #conversation-poller"); }
  function nearBottom() {
    return window.innerHeight + window.scrollY >= document.body.scrollHeight - 400;
  }
  function setPaused(paused) {
    const badge = document.querySelector("[data-live]");
    if (!badge || paused === livePaused) return;
    livePaused = paused;
    badge.textContent = paused ? "LIVE paused" : "● LIVE";
    const bar = document.querySelector("[data-follow-bar]");
    if (bar) bar.hidden = !paused;
    const poller = livePoller();
    if (!paused && poller) htmx.trigger(poller, "resume");
  }
  window.addEventListener("scroll", () => setPaused(!nearBottom()), { passive: true });
  document.addEventListener("click", (event) => {
    if (!event.target.closest("[data-live-resume]")) return;
    window.scrollTo(0, document.body.scrollHeight);
    setPaused(false);
  });
  document.addEventListener("htmx:afterSwap", (event) => {
    if (document.querySelector("[data-live]") && !livePaused && event.detail.target && ["turn-poller", "conversation-poller"].includes(event.detail.target.id)) {
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
        // match.js marks a search hit's words again in the new box.
        fresh.dispatchEvent(new CustomEvent("waysweb:recoloured", { bubbles: true }));
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
