// A search hit opened at its match. A result links to its entry with the search words (`?q=`) and
// the entry's id (`#u-…`); the server already drew that entry's clamped boxes whole (`hit=`), so the
// match is on the page without this script. Here: a collapsed card is opened, the words are marked
// in the card (<mark class="search-match">) and the first one is scrolled into view.
(function () {
  "use strict";
  const words = new URLSearchParams(location.search).get("q");
  let id = "";
  try { id = decodeURIComponent(location.hash.slice(1)); } catch (error) { return; }
  if (!words || !id) return;

  // The search's own rules (introspect/queries/search.py search_terms): whitespace-separated,
  // surrounding quotes dropped, at least one letter or digit. A word matches at the start of a word.
  const terms = words.split(/\s+/)
    .map((word) => word.replace(/^["']+|["']+$/g, ""))
    .filter((word) => /[\p{L}\p{N}]/u.test(word))
    .sort((a, b) => b.length - a.length)
    .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (!terms.length) return;
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${terms.join("|")})`, "giu");

  function mark(root) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: (node) => (node.parentElement.closest("mark, script, style") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    const nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    const marks = [];
    for (const node of nodes) {
      const text = node.nodeValue;
      const pieces = document.createDocumentFragment();
      let from = 0;
      for (const found of text.matchAll(pattern)) {
        pieces.append(text.slice(from, found.index));
        const hit = document.createElement("mark");
        hit.className = "search-match";
        hit.textContent = found[0];
        pieces.append(hit);
        marks.push(hit);
        from = found.index + found[0].length;
      }
      if (!from) continue;
      pieces.append(text.slice(from));
      node.replaceWith(pieces);
    }
    return marks;
  }

  function visible(el) {
    return el.checkVisibility ? el.checkVisibility() : el.getClientRects().length > 0;
  }

  function openDetails(el, upTo) {
    for (let at = el; at && at !== upTo.parentElement; at = at.parentElement) {
      if (at.tagName === "DETAILS" && !at.open) at.open = true;
    }
  }

  function show() {
    const target = document.getElementById(id);
    if (!target || !target.closest("#conversation, #turn-list, #subagent-conversation")) return;
    target.classList.add("search-target");
    if (target.tagName === "DETAILS") target.open = true; // a collapsed card (thinking, injected text)
    const marks = mark(target);
    let first = marks.find(visible);
    if (!first && marks.length) {
      first = marks[0];
      openDetails(first, target); // the words only in a folded part: unfold it
    }
    if (first) first.classList.add("is-first");
    (first || target).scrollIntoView({ block: first ? "center" : "start" });
    // A code box coloured late (past the page's highlighting budget) arrives without the marks.
    document.addEventListener("waysweb:recoloured", (event) => {
      if (target.contains(event.target)) mark(event.target);
    });
  }

  // After the browser's own scroll to the #fragment, which would otherwise undo ours.
  if (document.readyState === "complete") show();
  else window.addEventListener("load", show, { once: true });
})();
