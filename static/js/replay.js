// Replay mode: step through a session like `ways session replay`, frame by frame, with the active
// way set of the current compaction window growing as it goes. Reads the same replay.json the API
// serves; the server-rendered page stays complete without it.
(function () {
  "use strict";
  const panel = document.getElementById("replay");
  if (!panel) return;
  const $ = (name) => panel.querySelector(`[data-replay="${name}"]`);
  let frames = [];
  let index = 0;
  let timer = null;
  let windowNo = 1;

  function text(tag, content, cls) {
    const el = document.createElement(tag);
    el.textContent = content;
    if (cls) el.className = cls;
    return el;
  }

  function windowOf(i) {
    let n = 1;
    for (let k = 1; k <= i; k++) {
      if (frames[k].new_events.some((e) => e.indexOf("compaction") >= 0)) n++;
    }
    return n;
  }

  function show(i) {
    if (!frames.length) return;
    index = Math.max(0, Math.min(frames.length - 1, i));
    const frame = frames[index];
    windowNo = windowOf(index);
    $("scrub").value = String(index + 1);
    $("where").textContent = `frame ${frame.epoch} of window ${windowNo} · ${frame.timestamp} · ${frame.token_position_k}K ctx · ${index + 1}/${frames.length}`;
    $("window").textContent = `(window ${windowNo})`;
    const active = $("active");
    active.replaceChildren();
    for (const way of frame.active_ways) {
      const li = document.createElement("li");
      li.className = `outcome--${way.outcome}` + (way.is_new ? " is-new" : "") + (way.is_redisclosed ? " is-re" : "");
      li.append(text("span", way.id, "way-id mono"), text("span", ` ${way.trigger || "—"}`, "muted"));
      if (way.is_new) li.append(text("span", " new", "mark mark--re"));
      if (way.is_redisclosed) li.append(text("span", " ↻", "mark mark--re"));
      if (way.outcome !== "injected") li.append(text("span", ` ${way.outcome.replace("_", " ")}${way.p_yes ? " " + way.p_yes : ""}`, "mark mark--held"));
      if (way.agent && way.agent !== "main") li.append(text("span", ` ${way.agent}`, "badge badge--muted"));
      active.append(li);
    }
    const events = $("events");
    events.replaceChildren();
    for (const note of frame.new_events) events.append(text("li", note));
    for (const s of frame.suppressed || []) events.append(text("li", `suppressed ${s.lane} (${s.switch})`, "muted"));
    if (!events.children.length) events.append(text("li", "no change", "muted"));
    markTurn(frame.timestamp);
  }

  function markTurn(timestamp) {
    let last = null;
    for (const turn of document.querySelectorAll("[data-turn]")) {
      const time = turn.querySelector("time");
      if (time && time.textContent <= timestamp) last = turn;
      turn.classList.remove("is-replayed");
    }
    if (last) last.classList.add("is-replayed");
  }

  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    $("play").textContent = "▶ play";
  }

  function play() {
    if (timer) return stop();
    if (index >= frames.length - 1) show(0);
    $("play").textContent = "❚❚ pause";
    timer = setInterval(() => {
      if (index >= frames.length - 1) return stop();
      show(index + 1);
    }, Number($("speed").value));
  }

  $("play").addEventListener("click", play);
  $("prev").addEventListener("click", () => { stop(); show(index - 1); });
  $("next").addEventListener("click", () => { stop(); show(index + 1); });
  $("scrub").addEventListener("input", (e) => { stop(); show(Number(e.target.value) - 1); });
  $("speed").addEventListener("change", () => { if (timer) { stop(); play(); } });
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, textarea, select") || e.metaKey || e.ctrlKey || e.altKey) return;
    if (e.key === " ") { e.preventDefault(); play(); }
    else if (e.key === "ArrowRight") { stop(); show(index + 1); }
    else if (e.key === "ArrowLeft") { stop(); show(index - 1); }
  });

  fetch(panel.dataset.replayUrl, { headers: { Accept: "application/json" } })
    .then((r) => r.json())
    .then((doc) => {
      if (!doc.frames || !doc.frames.length) return;
      frames = doc.frames;
      $("scrub").max = String(frames.length);
      panel.hidden = false;
      show(0);
    })
    .catch(() => {});
})();
