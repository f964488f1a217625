"""Conversation cards in a real browser: long outputs clamped to 12 lines, highlighted code, diffs,
AskUserQuestion, local timestamps (every page at every width: tests/browser/test_layout.py)."""

from __future__ import annotations

import uuid
from io import StringIO
from pathlib import Path

import orjson
import pytest
from django.core.management import call_command

from introspect.models import Session
from tests.browser.conftest import ARTIFACTS

pytestmark = [pytest.mark.django_db(transaction=True)]

LONG = "d9253f7d-53c6-40ee-932c-a3cba232d3a0"
CARDS = "c4a2d5e0-0000-4000-8000-00000000ca7d"
PHONE = {"width": 390, "height": 844}
READ_SOURCE = Path(__file__).resolve().parents[2] / "introspect" / "rules" / "timestamps.py"


def transcript() -> list[dict]:
    """A short real-shaped session: a prompt, then Bash (40 lines out), Edit, Read, AskUserQuestion, Task."""
    lines: list[dict] = []
    parent = None
    clock = iter(range(10, 59))

    def add(kind: str, message: dict, **extra) -> None:
        nonlocal parent
        line_uuid = str(uuid.uuid4())
        lines.append(
            {
                "parentUuid": parent,
                "isSidechain": False,
                "userType": "external",
                "cwd": "/home/dev/src/cards",
                "sessionId": CARDS,
                "version": "2.1.40",
                "gitBranch": "main",
                "type": kind,
                "message": message,
                "uuid": line_uuid,
                "timestamp": f"2026-02-10T21:11:{next(clock):02d}.500Z",
                **extra,
            }
        )
        parent = line_uuid

    def call(tool_id: str, name: str, tool_input: dict) -> None:
        block = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
        add("assistant", {"role": "assistant", "model": "claude-opus-4-6", "content": [block]})

    def result(tool_id: str, content: str, extra) -> None:
        block = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
        add("user", {"role": "user", "content": [block]}, toolUseResult=extra)

    add(
        "user",
        {"role": "user", "content": "Run the tests, fix the failing one, and show me the timestamps module."},
    )
    out = "\n".join(
        f"tests/test_{n:02d}.py::test_it_works_{n} PASSED{' ' * 8}[{n * 2:3d}%]" for n in range(1, 41)
    )
    call(
        "toolu_bash",
        "Bash",
        {"command": "uv run pytest -q tests/ -x \\\n  --maxfail=1", "description": "Run the tests"},
    )
    result("toolu_bash", out, {"stdout": out, "stderr": "", "interrupted": False, "isImage": False})
    edit = {
        "file_path": "/home/dev/src/cards/app/models.py",
        "old_string": "    return self.total / self.count\n",
        "new_string": "    if not self.count:\n        return 0.0\n    return self.total / self.count\n",
    }
    call("toolu_edit", "Edit", edit)
    patch = [
        {
            "oldStart": 41,
            "oldLines": 4,
            "newStart": 41,
            "newLines": 6,
            "lines": [
                "     @property",
                "     def mean(self) -> float:",
                '         """The average, or 0 for no samples."""',
                "-        return self.total / self.count",
                "+        if not self.count:",
                "+            return 0.0",
                "+        return self.total / self.count",
            ],
        }
    ]
    result(
        "toolu_edit",
        "The file has been updated.",
        {
            "filePath": edit["file_path"],
            "oldString": edit["old_string"],
            "newString": edit["new_string"],
            "structuredPatch": patch,
        },
    )
    source = READ_SOURCE.read_text()
    call("toolu_read", "Read", {"file_path": "/home/dev/src/cards/introspect/rules/timestamps.py"})
    numbered = "\n".join(f"{n:6d}→{line}" for n, line in enumerate(source.splitlines(), 1))
    file = {
        "filePath": "/home/dev/src/cards/introspect/rules/timestamps.py",
        "content": source,
        "numLines": source.count("\n"),
        "startLine": 1,
        "totalLines": source.count("\n"),
    }
    result("toolu_read", numbered, {"type": "text", "file": file})
    questions = {
        "questions": [
            {
                "question": "Which zero-count behaviour do you want?",
                "header": "Mean",
                "multiSelect": False,
                "options": [
                    {"label": "Return 0.0", "description": "quiet, as the dashboard expects"},
                    {"label": "Raise ValueError", "description": "loud, callers must check"},
                ],
            }
        ]
    }
    call("toolu_ask", "AskUserQuestion", questions)
    answer = 'User has answered your questions: "Which zero-count behaviour do you want?"="Return 0.0". …'
    result(
        "toolu_ask",
        answer,
        {**questions, "answers": {"Which zero-count behaviour do you want?": "Return 0.0"}},
    )
    call(
        "toolu_task",
        "Task",
        {"description": "Review the fix", "prompt": "Review **app/models.py**", "subagent_type": "reviewer"},
    )
    result(
        "toolu_task",
        "## Review\n\nThe fix is **correct**; one test covers it.\n\n- `mean()` is 0.0\n- <script>alert(1)</script>",
        {"status": "completed", "agentId": "a1b2c3d", "totalTokens": 1234},
    )
    add(
        "assistant",
        {
            "role": "assistant",
            "model": "claude-opus-4-6",
            "content": [{"type": "text", "text": "Fixed: `mean()` returns **0.0** for no samples."}],
        },
    )
    return lines


@pytest.fixture
def cards(sample_home):
    folder = sample_home / ".claude/projects/-home-dev-src-cards"
    folder.mkdir()
    (folder / f"{CARDS}.jsonl").write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in transcript()))
    call_command("ingest", stdout=StringIO())
    return sample_home


def card(tab, tool_use_id: str):
    return tab.page.locator(f'[data-tool-use="{tool_use_id}"]')


def result_of(tab, tool_use_id: str):
    # A result is its own entry until the page query pairs it into the call's card.
    paired = card(tab, tool_use_id).locator(".tool-result")
    return paired if paired.count() else card(tab, tool_use_id).locator("xpath=following-sibling::*[1]")


def test_it_clamps_long_outputs_and_highlights_code(tab, cards):
    tab.go(f"/sessions/{CARDS}/")
    assert Session.objects.filter(sid=CARDS).exists()

    bash = result_of(tab, "toolu_bash")
    preview = bash.locator(".code > pre.code-lines .line")
    assert preview.count() == 12
    assert bash.locator(".show-all summary").inner_text() == "show all 40 lines"
    assert not bash.locator(".show-all .line").first.is_visible()
    bash.locator(".show-all summary").click()
    assert bash.locator(".show-all .line").first.is_visible()
    assert bash.locator(".show-all .line").first.get_attribute("data-n") == "13"

    assert card(tab, "toolu_bash").locator('.code[data-language="bash"] .hl span').count() > 0
    read = result_of(tab, "toolu_read")
    assert read.locator('.code[data-language="python"] .hl .kn').first.inner_text() in ("from", "import")
    edit = result_of(tab, "toolu_edit")
    assert edit.locator(".diff--add").count() == 3 and edit.locator(".diff--del").count() == 1
    assert edit.locator(".diff-no").first.is_visible()

    ask = card(tab, "toolu_ask")
    assert "Which zero-count behaviour" in ask.inner_text() and "Raise ValueError" in ask.inner_text()
    answered = result_of(tab, "toolu_ask")
    assert "Return 0.0" in (
        answered.inner_text() + ask.locator(".ask-option--chosen").all_inner_texts().__str__()
    )
    task = result_of(tab, "toolu_task")
    assert task.locator(".agent-result strong").first.inner_text() == "correct"
    assert task.locator("script").count() == 0

    # Times arrive as UTC text and are shown in the browser's zone once the script ran.
    stamp = tab.page.locator("time.ts").first
    assert stamp.get_attribute("datetime").endswith("Z")
    assert stamp.get_attribute("data-local") is None
    assert tab.page.evaluate("document.querySelectorAll('time[data-local]').length") == 0

    shots = ARTIFACTS
    shots.mkdir(parents=True, exist_ok=True)
    tab.page.set_viewport_size({"width": 1100, "height": 900})
    bash.locator(".show-all summary").click()  # closed again
    card(tab, "toolu_bash").scroll_into_view_if_needed()
    for name, tool_use_id in (
        ("40-bash-output", "toolu_bash"),
        ("41-edit-diff", "toolu_edit"),
        ("42-read-python", "toolu_read"),
        ("43-ask", "toolu_ask"),
    ):
        box_top = card(tab, tool_use_id)
        box_top.scroll_into_view_if_needed()
        # The call and (until pairing) its result, together.
        tab.page.screenshot(
            path=str(shots / f"{name}.png"), clip=clip_around(tab, tool_use_id), full_page=True
        )
    tab.page.emulate_media(color_scheme="dark")
    for name, tool_use_id in (("47-read-python-dark", "toolu_read"), ("48-edit-diff-dark", "toolu_edit")):
        card(tab, tool_use_id).scroll_into_view_if_needed()
        tab.page.screenshot(
            path=str(shots / f"{name}.png"), clip=clip_around(tab, tool_use_id), full_page=True
        )
    tab.page.emulate_media(color_scheme="light")
    tab.page.set_viewport_size(PHONE)
    tab.page.screenshot(path=str(shots / "44-cards-phone.png"), full_page=True)
    for name, tool_use_id in (("49-bash-phone", "toolu_bash"), ("50-edit-phone", "toolu_edit")):
        tab.page.evaluate(f"document.querySelector('[data-tool-use={tool_use_id}]').scrollIntoView()")
        tab.page.screenshot(path=str(shots / f"{name}.png"))
    assert tab.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def clip_around(tab, tool_use_id: str) -> dict:
    """The call's card and its result, in page coordinates (for a full-page screenshot)."""
    scroll = tab.page.evaluate("window.scrollY")
    top = card(tab, tool_use_id).bounding_box()
    bottom = result_of(tab, tool_use_id).bounding_box()
    height = min(bottom["y"] + bottom["height"] - top["y"] + 8, 1400)
    return {
        "x": 0,
        "y": max(top["y"] + scroll - 4, 0),
        "width": tab.page.viewport_size["width"],
        "height": height,
    }


LONG_PROMPT_SESSION = "e7d6c5b4-0000-4000-8000-0000000010a6"


def test_a_long_prompt_opens_whole_from_show_all_without_javascript(browser, live_server, sample_home):
    prompt = "".join(f"step {n} " for n in range(4_000)) + "LAST-WORD"  # 33,899 characters
    folder = sample_home / ".claude/projects/-home-dev-src-long"
    folder.mkdir()
    line = {
        "type": "user",
        "uuid": "p-long",
        "sessionId": LONG_PROMPT_SESSION,
        "timestamp": "2026-02-10T21:11:10.500Z",
        "message": {"role": "user", "content": prompt},
    }
    (folder / f"{LONG_PROMPT_SESSION}.jsonl").write_bytes(orjson.dumps(line) + b"\n{torn\n")
    call_command("ingest", stdout=StringIO())
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{live_server.url}/sessions/{LONG_PROMPT_SESSION}/")
    quote = page.locator("blockquote.prompt")
    assert quote.locator(".text-preview").is_visible() and "LAST-WORD" not in quote.inner_text()
    quote.get_by_text(f"show all ({len(prompt):,} characters)").click()
    assert quote.locator(".text-whole").inner_text().endswith("LAST-WORD")
    assert not quote.locator(".text-preview").is_visible()  # the whole takes the preview's place
    assert page.locator(".entry--gap").inner_text().startswith("not read line 2 of")
    context.close()
