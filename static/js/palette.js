// The command palette: Ctrl/Cmd+K opens base.html's <dialog id="palette">; typing asks
// /palette.json?q=… (sessions by id prefix, title or project; ways; decisions; pages) and lists the
// answer; ↑/↓ choose, Enter opens, Esc closes (the dialog's own cancel). Results are built with
// textContent only: titles are agent text. With nothing chosen, Enter submits the plain search form.
(function () {
  "use strict";
  // Looked up again on each opening: a boosted navigation (hx-boost) replaces the <body> it is in.
  let dialog = null;
  let input = null;
  let list = null;
  function bind() {
    dialog = document.getElementById("palette");
    input = dialog && dialog.querySelector("[data-palette-input]");
    list = dialog && dialog.querySelector("#palette-results");
    return Boolean(dialog && input && list);
  }
  const KINDS = { page: "page", session: "session", way: "way", decision: "decision" };
  let items = [];
  let chosen = -1;
  let asked = 0; // the newest request's number: a slow older answer never overwrites a newer one
  let timer = null;
  let shownFor = null; // the text the listed items answer

  function open() {
    if (!bind() || dialog.open) return;
    // The last opening's answer is stale: never shown (nor chosen by ↑/↓) while this one's is asked.
    items = [];
    chosen = -1;
    shownFor = null;
    list.replaceChildren();
    dialog.showModal();
    input.select();
    ask();
  }

  function ask() {
    clearTimeout(timer);
    const number = ++asked;
    const text = input.value;
    return fetch(`${list.dataset.paletteUrl}?q=${encodeURIComponent(text)}`, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(String(response.status)))))
      .then((doc) => { if (number === asked) show(doc.items || [], text); })
      .catch(() => { if (number === asked) show([], text); });
  }

  function go() {
    if (chosen >= 0 && items[chosen]) window.location.href = items[chosen].url;
    else input.form.submit();
  }

  function show(found, text) {
    items = found;
    shownFor = text;
    chosen = found.length ? 0 : -1;
    list.replaceChildren();
    found.forEach((item, index) => {
      const li = document.createElement("li");
      li.id = `palette-item-${index}`;
      li.setAttribute("role", "option");
      const link = document.createElement("a");
      link.href = item.url;
      link.tabIndex = -1; // the input keeps the focus; ↑/↓ move the choice
      const kind = document.createElement("span");
      kind.className = `badge badge--muted palette-kind palette-kind--${KINDS[item.kind] || "page"}`;
      kind.textContent = item.kind;
      const label = document.createElement("span");
      label.className = "palette-label";
      label.textContent = item.label;
      link.append(kind, label);
      if (item.detail) {
        const detail = document.createElement("span");
        detail.className = "palette-detail muted mono";
        detail.textContent = item.detail;
        link.append(detail);
      }
      li.append(link);
      list.append(li);
    });
    if (!found.length && input.value.trim()) {
      const none = document.createElement("li");
      none.className = "palette-none muted";
      none.textContent = "Nothing to jump to; Enter searches for it.";
      list.append(none);
    }
    mark();
  }

  function mark() {
    list.querySelectorAll("[role=option]").forEach((li, index) => li.setAttribute("aria-selected", String(index === chosen)));
    const current = chosen >= 0 ? list.querySelector(`#palette-item-${chosen}`) : null;
    if (current) current.scrollIntoView({ block: "nearest" });
    if (current) input.setAttribute("aria-activedescendant", current.id);
    else input.removeAttribute("aria-activedescendant");
  }

  document.addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && event.key.toLowerCase() === "k") {
      event.preventDefault(); // the browser's own Ctrl+K (the address bar's search)
      if (dialog && dialog.isConnected && dialog.open) dialog.close();
      else open();
    }
  });

  // Delegated, so the listeners outlive the elements a boosted navigation replaces.
  document.addEventListener("input", (event) => {
    if (event.target !== input) return;
    clearTimeout(timer);
    timer = setTimeout(ask, 120); // one request per pause in typing, not per key
  });

  document.addEventListener("keydown", (event) => {
    if (event.target !== input) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (!items.length) return;
      const step = event.key === "ArrowDown" ? 1 : -1;
      chosen = (chosen + step + items.length) % items.length;
      mark();
    } else if (event.key === "Escape") {
      // A search field's first Esc only clears its text; the palette closes on the first.
      event.preventDefault();
      dialog.close();
    } else if (event.key === "Enter") {
      event.preventDefault();
      // Typed faster than the answers came: open the first match for what is typed now, not a stale one.
      if (shownFor === input.value) go();
      else ask().then(go);
    }
  });

  document.addEventListener("mousemove", (event) => {
    const li = list && event.target.closest && event.target.closest("#palette-results [role=option]");
    if (!li) return;
    const index = Array.from(list.children).indexOf(li);
    if (index !== chosen) { chosen = index; mark(); }
  });
})();
