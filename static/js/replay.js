// Replay mode: step through a session like `ways session replay`, frame by frame, with the active
// way set of the current compaction window growing as it goes. Nothing is fetched on page load:
// opening the panel fetches the first window's frames (`replay.json?window=1`, which also lists
// every window's frame count), and moving into another window fetches that window, once. The
// server-rendered page stays complete without it.
(function () {
  "use strict";
  const panel = document.getElementById("replay");
  if (!panel) return;
  const $ = (name) => panel.querySelector(`[data-replay="${name}"]`);
  const details = $("panel");
  let windows = []; // [{window, frames, offset}] from the first answer
  let total = 0;
  const loaded = new Map(); // window number → its frames
  const pending = new Map(); // window number → the fetch in flight
  let index = 0;
  let timer = null;
  let started = null; // the first fetch, shared by every control pressed before it answers

  function text(tag, content, cls) {
    const el = document.createElement(tag);
    el.textContent = content;
    if (cls) el.className = cls;
    return el;
  }

  function windowAt(i) {
    for (const w of windows) if (i < w.offset + w.frames) return w;
    return windows[windows.length - 1];
  }

  function frameAt(i) {
    const w = windowAt(i);
    const frames = w && loaded.get(w.window);
    return frames ? frames[i - w.offset] : null;
  }

  function load(number) {
    if (loaded.has(number)) return Promise.resolve(loaded.get(number));
    if (pending.has(number)) return pending.get(number);
    const request = fetch(panel.dataset.replayWindowUrl + number, { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(String(r.status)))))
      .then((doc) => {
        if (!windows.length) {
          windows = doc.windows || [];
          total = doc.frames_total || 0;
          $("scrub").max = String(Math.max(total, 1));
        }
        loaded.set(number, doc.frames || []);
        return loaded.get(number);
      })
      .finally(() => pending.delete(number));
    pending.set(number, request);
    return request;
  }

  function start() {
    if (!started) {
      started = load(1).catch(() => {
        started = null;
        $("where").textContent = "could not load the replay; open the panel again to retry";
      });
    }
    return started;
  }

  function show(i) {
    if (!total) return;
    index = Math.max(0, Math.min(total - 1, i));
    const w = windowAt(index);
    $("scrub").value = String(index + 1);
    $("window").textContent = `(window ${w.window})`;
    const frame = frameAt(index);
    if (!frame) {
      // Known before the window arrives: where we are. The frame itself follows.
      $("where").textContent = `frame ${index - w.offset + 1} of window ${w.window} · loading… · ${index + 1}/${total}`;
      const wanted = index;
      load(w.window).then(() => { if (index === wanted) show(wanted); }).catch(() => {
        if (index === wanted) $("where").textContent = `could not load window ${w.window} · ${index + 1}/${total}`;
      });
      return;
    }
    $("where").textContent = `frame ${frame.epoch} of window ${w.window} · ${frame.timestamp} · ${frame.token_position_k}K ctx · ${index + 1}/${total}`;
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

  // Every control first makes sure the first window (and with it the frame counts) is here.
  function then(action) {
    return () => start().then(() => { if (total) action(); });
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

  function tick() {
    if (index >= total - 1) return stop();
    const w = windowAt(index + 1);
    if (!loaded.has(w.window)) { load(w.window).catch(stop); return; } // wait for it, then go on
    show(index + 1);
    const next = windows[windows.indexOf(w) + 1];
    if (next && index + 10 >= w.offset + w.frames) load(next.window).catch(() => {}); // ahead of time
  }

  function play() {
    if (timer) return stop();
    if (index >= total - 1) show(0);
    $("play").textContent = "❚❚ pause";
    timer = setInterval(tick, Number($("speed").value));
  }

  details.addEventListener("toggle", () => {
    if (!details.open) return stop();
    const first = !started;
    start().then(() => { if (first && total) show(0); });
  });
  $("play").addEventListener("click", then(play));
  $("prev").addEventListener("click", then(() => { stop(); show(index - 1); }));
  $("next").addEventListener("click", then(() => { stop(); show(index + 1); }));
  $("scrub").addEventListener("input", (e) => { const to = Number(e.target.value) - 1; then(() => { stop(); show(to); })(); });
  $("speed").addEventListener("change", () => { if (timer) { stop(); play(); } });
  // The keys work as soon as the panel is open, focus still on its summary (where the click that
  // opened it left it): Space plays there instead of folding the panel (Enter still folds it).
  // A focused button keeps its own Space (its click); fields and other summaries keep their keys.
  const own = details.querySelector("summary");
  document.addEventListener("keydown", (e) => {
    if (!details.open || e.metaKey || e.ctrlKey || e.altKey) return;
    const target = e.target;
    if (target.closest("input, textarea, select") || target.isContentEditable) return;
    if (target.closest("summary") && target.closest("summary") !== own) return;
    if (e.key === " ") {
      if (target.closest("button")) return;
      e.preventDefault();
      then(play)();
    } else if (e.key === "ArrowRight") {
      e.preventDefault();
      then(() => { stop(); show(index + 1); })();
    } else if (e.key === "ArrowLeft") {
      e.preventDefault();
      then(() => { stop(); show(index - 1); })();
    }
  });
  // Space on a summary toggles it on keyup: the keydown above took the key, so the keyup must not.
  own.addEventListener("keyup", (e) => { if (e.key === " " && details.open) e.preventDefault(); });
  panel.hidden = false; // the controls work with JavaScript only
})();
