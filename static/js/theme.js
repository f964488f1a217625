// The theme: light, dark, or auto (no data-theme on <html>: the system setting decides, as it does
// for a page without JavaScript). Loaded in <head> without defer, after the stylesheets, so the
// remembered choice is on <html> before the first paint. The header's <select> switches it.
(function () {
  "use strict";
  const KEY = "waysweb-theme";
  const root = document.documentElement;

  function remembered() {
    try {
      const value = localStorage.getItem(KEY);
      return value === "light" || value === "dark" ? value : "auto";
    } catch (error) {
      return "auto"; // storage refused (private mode, a policy): the system setting applies
    }
  }

  function apply(theme) {
    if (theme === "auto") delete root.dataset.theme;
    else root.dataset.theme = theme;
    // app.css follows color-scheme by itself; the code colours are a stylesheet of their own.
    const dark = document.getElementById("pygments-dark");
    if (dark) dark.media = theme === "auto" ? "(prefers-color-scheme: dark)" : theme === "dark" ? "all" : "not all";
  }

  function remember(theme) {
    try {
      if (theme === "auto") localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, theme);
    } catch (error) { /* applied for this page only */ }
  }

  // The header comes again with every boosted navigation: show its switch, set to the current choice.
  function showSwitches() {
    const theme = remembered();
    document.querySelectorAll("[data-theme-switch]").forEach((select) => {
      select.value = theme;
      select.closest(".theme-switch").hidden = false;
    });
  }

  apply(remembered());
  document.addEventListener("DOMContentLoaded", showSwitches);
  document.addEventListener("htmx:load", showSwitches);
  document.addEventListener("change", (event) => {
    if (!event.target.matches("[data-theme-switch]")) return;
    remember(event.target.value);
    apply(event.target.value);
  });
  // Another tab switched: follow it.
  window.addEventListener("storage", (event) => {
    if (event.key === KEY || event.key === null) { apply(remembered()); showSwitches(); }
  });
})();
