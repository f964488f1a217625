// The labelling page's keys: 1, 2, 3 press the relevant / irrelevant / unsure button (a plain form
// POST: the server records the label and answers with the next fire), j and k follow the next and
// previous links. Without this script the buttons and links work the same by mouse.
(function () {
  "use strict";

  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  let sent = false;
  document.addEventListener("keydown", (event) => {
    if (event.metaKey || event.ctrlKey || event.altKey || typing(event.target)) return;
    const form = document.querySelector("[data-label-form]");
    if (form && /^[123]$/.test(event.key)) {
      const button = form.querySelector(`button[data-key="${event.key}"]`);
      // One label per page: a key held down would otherwise post it again while the next page loads.
      if (button && !sent) {
        sent = true;
        event.preventDefault();
        form.requestSubmit(button);
      }
      return;
    }
    if (event.key === "j" || event.key === "k") {
      const link = document.querySelector(`.label-pager a[data-key="${event.key}"]`);
      if (link) {
        event.preventDefault();
        window.location.href = link.href;
      }
    }
  });
  // Coming back by the back button (the page restored from the cache) the keys work again.
  window.addEventListener("pageshow", () => { sent = false; });
})();
