"""A sample session: its story told through prompts, tool steps, subagents and compactions, written as
agent-ways event rows (sample/specs.py, rendered by sample/event_rows.py) and Claude Code transcript
lines (sample/transcript.py)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sample import formats
from sample.event_rows import render
from sample.specs import EV, F, P, S
from sample.state import Home
from sample.timeline import OPUS, PROJECTS, floor_s, msec
from sample.tool_output import CODE, ext
from sample.transcript import Thread, TranscriptBuilder
from sample.ways import CRITERIA

DEFAULT_SUMMARY = (
    "1. Primary request: continue the work described above.\n"
    "2. Files touched so far are listed in the conversation.\n3. Pending: finish the open step."
)


class Session(TranscriptBuilder):
    """One session of the sample: its agent-ways events and its transcript, told step by step."""

    def __init__(
        self,
        h: Home,
        key: str,
        project: str,
        start: datetime,
        *,
        gen: str | None,
        model=OPUS,
        version="2.1.180",
        branch="main",
        transcript=True,
        heavy=1.0,
        base=None,
        note="",
    ) -> None:
        self.h = h
        self.rng = h.rng
        self.key = key
        self.sid = self.new_uuid()
        self.project = PROJECTS[project]
        self.cwd = self.project
        self.clock = start.replace(microsecond=h.rng.randint(0, 999) * 1000)
        self.gen = gen  # "pre1" | "old" | "new" | None (no agent-ways events)
        self.version = version
        self.branch = branch
        self.write_transcript = transcript
        self.heavy = heavy
        self.note = note
        pending = h.rng.randint(14000, 19000)  # drawn before the slug: the stream's order is the files' bytes
        self.subs: list[tuple[Thread, dict]] = []
        self.prompts = 0
        self.compactions = 0
        self.ctx_state = 0
        self.prompt_id = None
        self.human_slug = "-".join(
            h.rng.choice(w)
            for w in (
                ["quiet", "lexical", "amber", "brisk", "silver", "hidden", "patient", "velvet"],
                ["painting", "harbor", "lantern", "meadow", "circuit", "orchard", "compass", "ember"],
                ["whisper", "falcon", "river", "summit", "thistle", "beacon", "willow", "pebble"],
            )
        )
        self.dest = None  # default event destination override ("legacy")
        self.turn_start = None
        self.title_done = False
        # prompt index -> (end of its turn, trunk position)
        self.turn_ends: dict[int, tuple[datetime, int]] = {}
        self.compaction_starts: list[tuple[datetime, int]] = []  # (PreCompact time, preTokens)
        self.opened: datetime | None = None  # the trunk's first line: when a majordomus episode opened
        # What each prompt hook and subagent dispatch logged, for the decision log (sample/decision_log.py):
        # ("prompt", hook time, rows) or ("task", dispatch time, rows, agent id); read, never drawn from rng.
        self.scan_points: list[tuple] = []
        self.trunk = Thread(self.envelope(None), model, None, base or pending)
        h.sessions.append(self)

    # clock -------------------------------------------------------------------------------
    def adv(self, lo: int, hi: int) -> None:
        self.clock += timedelta(milliseconds=self.rng.randint(lo, hi))

    def stamp(self) -> str:
        return msec(self.clock)

    def output_tokens(self, blocks: list[dict]) -> int:
        text = sum(
            len(b.get("text", "") or b.get("thinking", "") or formats.dumps(b.get("input", "")))
            for b in blocks
        )
        return max(12, text // 4 + self.rng.randint(8, 90))

    def message_ids(self) -> tuple[str, str]:
        return "msg_01" + self.h.b62(22), "req_011C" + self.h.b62(20)

    # transcript lines --------------------------------------------------------------------
    def envelope(self, agent: str | None) -> dict:
        return formats.envelope(
            cwd=self.cwd,
            session_id=self.sid,
            version=self.version,
            git_branch=self.branch,
            slug=self.human_slug,
            agent_id=agent,
        )

    def cd(self, path: str) -> None:
        """The working directory changes: every later line of every thread says so."""
        self.cwd = path
        for th in (self.trunk, *(sub for sub, _ in self.subs)):
            th.env = self.envelope(th.agent)

    def put(self, th: Thread, write, *args, **kwargs) -> str:
        if th is self.trunk:
            self.opened = self.clock if self.opened is None else min(self.opened, self.clock)
        return super().put(th, write, *args, **kwargs)

    def user(self, th: Thread, content, **extra) -> str:
        return self.put(th, formats.transcript_user, content, extra=extra or None)

    # events ------------------------------------------------------------------------------
    def hook(self, specs, th: Thread, ctx: dict) -> list[str]:
        base = floor_s(self.clock)
        bodies, extra = [], 0
        for sp in specs:
            dt = base + timedelta(seconds=sp.get("dt", 0))
            extra = max(extra, sp.get("dt", 0))
            d = render(sp, dt, th, ctx, project=self.project, session=self.sid, gen=self.gen)
            self.h.log(
                dt,
                d,
                dest=sp.get("dest", self.dest),
                late=sp.get("late", 0),
                session=self.sid,
                raw_ts=sp.get("raw_ts"),
            )
            if sp.get("dup_legacy"):
                self.h.log(dt, d, dest="legacy", session=self.sid)
            if sp["ev"] in ("way_fired", "way_redisclosed") and sp.get("inject"):
                body = CRITERIA[sp["way"]]["body"]
                if sp["way"] == "meta/context":
                    bodies.insert(0, f"Context in use: {th.position} tokens\n\n{body}")
                else:
                    bodies.append(body)
        self.clock += timedelta(seconds=extra)
        return bodies

    # session flow ------------------------------------------------------------------------
    def start(self, fires=None, *, start_dest=None, dup_legacy=False) -> None:
        """SessionStart: clear-markers.sh logs session_start; session-start ways fire (state)."""
        th = self.trunk
        th.lines.append(formats.transcript_permission_mode(self.sid))
        if not self.gen:
            return
        first = EV("session_start", project=P, session=S)
        if start_dest:
            first["dest"] = start_dest
        first["dup_legacy"] = dup_legacy
        if fires is None:
            fires = [] if self.gen == "pre1" else [F("meta/orientation", "state")]
        bodies = self.hook([first, *fires], th, {})
        self.adv(300, 900)
        if bodies:
            self.attach(th, "SessionStart", "SessionStart:startup", None, bodies, parent=None)

    def prompt(
        self, text: str, fires=(), steps=(), *, gap=None, think=None, answer=None, interrupt=False, at=None
    ) -> None:
        th = self.trunk
        if at is not None:
            self.clock = at
        else:
            if gap is None:
                gap = self.rng.randint(25, 200)
            self.clock += timedelta(seconds=gap, milliseconds=self.rng.randint(0, 999))
        self.prompts += 1
        self.prompt_id = self.new_uuid()
        self.turn_start = self.clock
        u = self.put(th, formats.transcript_prompt, text, prompt_id=self.prompt_id)
        th.pending += len(text) // 4 + 4
        self.adv(300, 800)
        fires = self.state_fires(th) + list(fires)
        hook_at = self.clock
        logged = len(self.h.events)
        bodies = self.hook(fires, th, {"prompt": text})
        self.scan_points.append(("prompt", hook_at, self.h.events[logged:], None))
        self.hook_time = hook_at
        if bodies:
            self.adv(400, 1200)
            self.attach(th, "UserPromptSubmit", "UserPromptSubmit", None, bodies, parent=u)
            th.pending += sum(len(b) for b in bodies) // 4
        if not self.title_done:
            th.lines.append(formats.transcript_ai_title(self.sid, text.split(",")[0][:60].rstrip(" .")))
            self.title_done = True
        if interrupt:  # the user pressed Esc before any answer arrived
            self.adv(300, 700)
            self.user(th, [formats.text_block(formats.INTERRUPTED)])
            return
        self.run(th, list(steps), think=think, answer=answer)
        if tuple(map(int, self.version.split("."))) >= (2, 1, 150):
            self.adv(20, 120)
            self.put(
                th,
                formats.transcript_turn_duration,
                duration_ms=int((self.clock - self.turn_start).total_seconds() * 1000),
            )
        self.turn_ends[self.prompts - 1] = (floor_s(self.clock), th.position)

    def state_fires(self, th: Thread) -> list[dict]:
        """meta/context (context-threshold 75 %): first fire, then one bare repeat row (scan/state.rs)."""
        if self.gen not in ("old", "new") or th.agent or th.position < 150_000 or self.ctx_state >= 2:
            return []
        self.ctx_state += 1
        return [F("meta/context", "state", minimal=self.ctx_state == 2, inject=self.ctx_state == 1)]

    def run(self, th: Thread, steps: list, *, think=None, answer=None) -> None:
        first = True
        for st in steps:
            kind = st[0]
            opts = st[-1] if isinstance(st[-1], dict) else {}
            blocks = []
            if first and think:
                blocks.append(formats.thinking_block(think, "Eu8C" + self.h.b62(60)))
            if opts.get("say"):
                blocks.append(formats.text_block(opts["say"]))
            first = False
            if kind == "agent":
                self.agent_step(th, blocks, st[1])
                continue
            self.tool_step(th, blocks, st, opts)
        final = answer or "Done."
        blocks = []
        if first and think:
            blocks.append(formats.thinking_block(think, "Eu8C" + self.h.b62(60)))
        blocks.append(formats.text_block(final))
        self.respond(th, blocks, "end_turn")

    def at(self, path: str) -> str:
        """A step's file: relative to the working directory, or absolute (Claude Code's memory files)."""
        return path if path.startswith("/") else f"{self.cwd}/{path}"

    def tool_step(self, th: Thread, blocks: list, st: tuple, opts: dict) -> None:
        kind, rng = st[0], self.rng
        tid = "toolu_01" + self.h.b62(22)
        err = False
        ctx: dict = {}
        if kind == "read":
            path = st[1]
            lines = CODE[ext(path)]
            name, inp = "Read", {"file_path": f"{self.cwd}/{path}"}
            content = "\n".join(formats.numbered_line(i + 1, t) for i, t in enumerate(lines))
            tur = formats.read_tool_result(
                f"{self.cwd}/{path}",
                "\n".join(lines),
                start_line=1,
                num_lines=len(lines),
                total_lines=len(lines) + rng.randint(20, 300),
            )
            weight, ctx = rng.randint(1500, 6000), {"path": path}
        elif kind == "grep":
            pattern, hits = st[1], st[2]
            name, inp = "Grep", {"pattern": pattern, "path": self.cwd, "output_mode": "files_with_matches"}
            content = f"Found {len(hits)} file{'s' if len(hits) != 1 else ''}\n" + "\n".join(hits)
            tur = formats.grep_tool_result(hits)
            weight = rng.randint(150, 600)
        elif kind == "write":
            path, text = st[1], st[2]
            name, inp = "Write", {"file_path": self.at(path), "content": text}
            content, tur = formats.write_tool_result(self.at(path), text)
            weight, ctx = rng.randint(150, 600), {"path": path}
        elif kind == "edit":
            path, old, new = st[1], st[2], st[3]
            name = "Edit"
            inp = {
                "file_path": self.at(path),
                "old_string": old,
                "new_string": new,
                "replace_all": False,
            }
            content, tur = formats.edit_tool_result(self.at(path), old, new, start=rng.randint(5, 120))
            weight, ctx = rng.randint(150, 600), {"path": path}
        elif kind in ("bash", "bash!"):
            cmd, out = st[1], st[2]
            err = kind == "bash!"
            name, inp = "Bash", {"command": cmd, "description": opts.get("desc", cmd.split()[0])}
            content, tur = formats.bash_tool_result(out, error=err)
            weight, ctx = rng.randint(300, 2500), {"cmd": cmd}
        else:
            raise ValueError(kind)
        blocks.append(formats.tool_use_block(tid, name, inp))
        tu = self.respond(th, blocks, "tool_use")
        th.tool_uses += 1
        self.adv(80, 400)
        bodies = self.hook(self.state_fires(th) + list(opts.get("pre", ())), th, ctx)
        if bodies:
            self.adv(100, 400)
            self.attach(th, "PreToolUse", f"PreToolUse:{name}", tid, bodies)
            th.pending += sum(len(b) for b in bodies) // 4
        self.adv(*opts.get("dur", (200, 3500)))
        block = formats.tool_result_block(tid, content, is_error=err)
        self.put(th, formats.transcript_tool_result, block, result=tur, assistant_uuid=tu)
        th.pending += int((weight + len(content) // 4) * self.heavy)
        if opts.get("cd"):
            self.cd(opts["cd"])
        if opts.get("post"):
            self.adv(100, 500)
            bodies = self.hook(opts["post"], th, ctx)
            if bodies:
                self.adv(50, 300)
                self.attach(th, "PostToolUse", f"PostToolUse:{name}", tid, bodies)
                th.pending += sum(len(b) for b in bodies) // 4

    def agent_step(self, th: Thread, blocks: list, spec: dict) -> None:
        tid = "toolu_01" + self.h.b62(22)
        blocks.append(
            formats.agent_tool_use_block(
                tid, description=spec["description"], prompt=spec["prompt"], subagent_type=spec["type"]
            )
        )
        tu = self.respond(th, blocks, "tool_use")
        agent_id = "a" + self.h.hexs(16)
        sub = Thread(self.envelope(agent_id), spec["model"], agent_id, self.rng.randint(7000, 9000))
        self.subs.append(
            (
                sub,
                formats.subagent_meta(
                    agent_type=spec["type"], description=spec["description"], tool_use_id=tid
                ),
            )
        )
        began = self.clock
        self.adv(300, 900)
        u = self.user(sub, spec["prompt"])
        sub.pending += len(spec["prompt"]) // 4
        logged = len(self.h.events)
        bodies = self.hook(spec.get("dispatch", ()), sub, {"prompt": spec["prompt"]})
        self.scan_points.append(("task", began, self.h.events[logged:], agent_id))
        if bodies:
            self.adv(100, 400)
            self.attach(sub, "SubagentStart", "SubagentStart", None, bodies, parent=u)
        self.run(sub, spec["steps"], answer=spec["result"])
        total = sub.cached
        usage = formats.usage(4, sub.pending, total, 380, breakdown=False)
        self.adv(200, 600)
        block, tur = formats.agent_tool_result(
            tid,
            spec["result"],
            agent_id=agent_id,
            total_tokens=total,
            tool_uses=sub.tool_uses,
            usage=usage,
            duration_ms=int((self.clock - began).total_seconds() * 1000),
        )
        self.put(th, formats.transcript_tool_result, block, result=tur, assistant_uuid=tu)
        th.pending += len(spec["result"]) // 4 + 40

    def compact(self, trigger: str, summary: str | None = None) -> None:
        th = self.trunk
        self.adv(2000, 9000) if trigger == "manual" else self.adv(300, 1500)
        pre = th.cached + th.pending
        began = self.clock
        self.compaction_starts.append((floor_s(began), pre))
        self.adv(20_000, 60_000)
        post = self.rng.randint(9000, 16000)
        self.compaction(
            th,
            trigger,
            pre=pre,
            post=post,
            duration_ms=int((self.clock - began).total_seconds() * 1000),
            summary=lambda: summary or DEFAULT_SUMMARY,
        )
        self.compactions += 1
        self.ctx_state = 0
        if self.gen:
            self.adv(400, 1500)
            bodies = self.hook(
                [EV("session_start", project=P, session=S), F("meta/orientation", "state")], th, {}
            )
            self.adv(300, 900)
            if bodies:
                self.attach(th, "SessionStart", "SessionStart:compact", None, bodies)

    def finish(self, last_prompt: str | None = None) -> None:
        if last_prompt:
            self.trunk.lines.append(formats.transcript_last_prompt(self.sid, last_prompt))
        if not self.write_transcript:
            return
        self.h.put_jsonl(formats.transcript_path(self.project, self.sid), self.trunk.lines)
        for sub, meta in self.subs:
            self.h.put_jsonl(formats.subagent_path(self.project, self.sid, sub.agent), sub.lines)
            self.h.put_text(formats.subagent_path(self.project, self.sid, sub.agent, ".meta.json"), meta)
