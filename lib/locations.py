"""Where agent-ways, Claude Code and waysweb keep their files.

Pure functions of an environment mapping, so settings, the importer and tests resolve the
same paths the same way. The rules are agent-ways' own (formats-agent-ways.md §2.1, §10.1):
an XDG variable that is unset, empty or relative counts as unset.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from lib import safefs

BASE_DIR = Path(__file__).resolve().parent.parent
SAMPLE_HOME = BASE_DIR / "sample" / "home"
# Two people's relevance labels of the sample's fires (sample/labels.py), imported on a pass over it.
SAMPLE_LABELS = SAMPLE_HOME / ".local" / "share" / "waysweb" / "labels.jsonl"
PROJECT_FOLDERS_CHECKED = 200


@dataclass(frozen=True)
class Locations:
    """Every place waysweb reads from or writes to."""

    home: Path
    claude_dir: Path
    state_dir: Path
    legacy_events: Path
    user_ways: Path
    agent_ways_data: Path
    ledger_dir: Path
    data_dir: Path
    repos: tuple[Path, ...] = field(default=())
    demo: bool = False
    # Every Claude Code configuration directory read, `claude_dir` (where hooks and the ledger live)
    # first: CLAUDE_CONFIG_DIR may list several, and newer Claude Code writes to ~/.config/claude.
    claude_dirs: tuple[Path, ...] = field(default=())

    @property
    def knowledge_dir(self) -> Path:
        """Where waysweb's own derived candidates and their promotions are written."""
        return self.own_knowledge or self.data_dir / "knowledge"

    own_knowledge: Path | None = None

    @property
    def core_ways(self) -> Path:
        """paths.rs shipped_ways_root: the ~/.claude projection when it is a directory, else the app copy."""
        projection = self.claude_dir / "hooks" / "ways"
        return projection if safefs.is_dir(projection) else self.agent_ways_data / "hooks" / "ways"

    @property
    def live_events(self) -> Path:
        return self.state_dir / "events.jsonl"

    @property
    def projects_dir(self) -> Path:
        """Claude Code's transcripts folder: one folder per project (formats-claude-code.md §1)."""
        return self.claude_dir / "projects"

    @property
    def every_claude_dir(self) -> tuple[Path, ...]:
        return self.claude_dirs or (self.claude_dir,)

    @property
    def projects_dirs(self) -> tuple[Path, ...]:
        """The transcripts folder of every Claude directory read, `projects_dir` first."""
        return tuple(claude / "projects" for claude in self.every_claude_dir)

    @property
    def legacy_logs(self) -> tuple[tuple[Path, Path], ...]:
        """(Claude directory, its pre-1.0 events log) for every Claude directory read, `claude_dir` first."""
        return tuple((claude, claude / "stats" / "events.jsonl") for claude in self.every_claude_dir)

    def has_user_data(self) -> bool:
        """True when there is anything of the user's to show: agent-ways events or Claude Code
        transcripts (a plain Claude Code user is a user too). Only then is the sample not shown."""
        return self.has_agent_ways_data() or self.has_transcripts()

    def has_transcripts(self, max_folders: int = PROJECT_FOLDERS_CHECKED) -> bool:
        """True when `projects/*/*.jsonl` holds a regular file, looking into at most `max_folders`
        project folders (a cheap check at start-up, not a scan: the importer finds them all)."""
        problems: list[safefs.Problem] = []
        for projects in self.projects_dirs:
            if not safefs.is_dir(projects):
                continue
            folders = (entry for entry in safefs.entries(projects, projects, problems) if entry.kind == "dir")
            for folder in islice(folders, max_folders):
                for entry in safefs.entries(projects, folder.path, problems):
                    if entry.kind == "file" and entry.name.endswith(".jsonl"):
                        return True
        return False

    def has_agent_ways_data(self) -> bool:
        """True when any events log exists; way files alone make no dashboard."""
        if safefs.is_file(self.live_events) or any(safefs.is_file(log) for _, log in self.legacy_logs):
            return True
        try:
            return safefs.is_dir(self.state_dir) and any(self.state_dir.glob("events-*.jsonl.gz"))
        except OSError:
            return False


def xdg_dir(env: Mapping[str, str], name: str, home: Path, default: str) -> Path:
    """agent-ways paths.rs xdg_dir: unset, empty or relative values fall back to the default."""
    raw = env.get(name, "")
    if raw and Path(raw).is_absolute():
        return Path(raw)
    return home / default


def absolute(env: Mapping[str, str], name: str) -> Path | None:
    raw = env.get(name, "")
    return Path(raw).expanduser() if raw else None


def claude_config_dirs(env: Mapping[str, str], home: Path, config_home: Path) -> tuple[Path, ...]:
    """The Claude Code configuration directories to read, the one holding hooks and the ledger first.

    As ccusage reads them: CLAUDE_CONFIG_DIR may name several, separated by commas; unset, both
    ~/.claude and $XDG_CONFIG_HOME/claude (where newer Claude Code writes; its folders are read
    when they exist). WAYSWEB_CLAUDE_DIR names exactly one. A directory named twice, or reached
    again through a link (~/.config/claude -> ~/.claude), is read once.
    """
    own = absolute(env, "WAYSWEB_CLAUDE_DIR")
    if own is not None:
        return (own,)
    listed = [Path(part.strip()).expanduser() for part in env.get("CLAUDE_CONFIG_DIR", "").split(",")]
    named = [path for path in listed if str(path) not in ("", ".")]
    candidates = named or [home / ".claude", config_home / "claude"]
    seen: set[str] = set()
    unique: list[Path] = []
    for path in candidates:
        if os.path.realpath(path) not in seen:
            seen.add(os.path.realpath(path))
            unique.append(path)
    return tuple(unique)


def resolve(env: Mapping[str, str], *, demo: bool = False) -> Locations:
    """Resolve every location from `env`; with `demo`, read the bundled sample HOME instead."""
    data_home = xdg_dir(env, "XDG_DATA_HOME", Path(env.get("HOME") or Path.home()), ".local/share")
    data_dir = absolute(env, "WAYSWEB_DATA_DIR") or data_home / "waysweb"
    original = env
    if demo:
        # The sample is read-only input; XDG and WAYSWEB_* source overrides would mix real data in.
        env = {"HOME": str(SAMPLE_HOME)}
    home = Path(env.get("HOME") or Path.home())
    config_home = xdg_dir(env, "XDG_CONFIG_HOME", home, ".config")
    claude_dirs = claude_config_dirs(env, home, config_home)
    claude_dir = claude_dirs[0]
    state_dir = (
        absolute(env, "WAYSWEB_STATE_DIR")
        or xdg_dir(env, "XDG_STATE_HOME", home, ".local/state") / "agent-ways"
    )
    repos = tuple(Path(p).expanduser() for p in env.get("WAYSWEB_REPOS", "").split(":") if p)
    if demo:
        # Reviewing the demo writes files: it works on a copy in the data directory, never on the
        # sample the repository ships (ledger/importer/run.py makes the copy).
        repos = tuple(
            data_dir / "demo-repos" / p.name for p in sorted((SAMPLE_HOME / "repos").glob("*")) if p.is_dir()
        )
    return Locations(
        home=home,
        claude_dir=claude_dir,
        state_dir=state_dir,
        legacy_events=claude_dir / "stats" / "events.jsonl",
        user_ways=config_home / "agent-ways" / "ways",
        agent_ways_data=xdg_dir(env, "XDG_DATA_HOME", home, ".local/share") / "agent-ways",
        ledger_dir=absolute(env, "WAYSWEB_LEDGER_DIR") or claude_dir / "ledger",
        data_dir=data_dir,
        repos=repos,
        demo=demo,
        claude_dirs=claude_dirs,
        own_knowledge=absolute(original, "WAYSWEB_KNOWLEDGE_DIR")
        or (data_dir / "demo-knowledge" if demo else None),
    )
