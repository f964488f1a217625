"""Files read and written only inside the root they belong to (importer-reliability.md §13.2).

No Django here. Every source waysweb reads lives under a root (the agent-ways state directory,
Claude Code's projects folder, a way root, a repository); a path under a root may still be a
symbolic link to anything (git stores symlinks: a repository can carry `docs/adr/x.md ->
~/.ssh/id_ed25519`). So:
- a path is opened only after its real path is found inside the root's real path, with
  `O_NOFOLLOW` on that real path and the opened descriptor's own path checked again (a link
  swapped in between the check and the open is caught);
- only regular files are read: opened `O_NONBLOCK` so a FIFO cannot block, then `S_ISREG`
  checked on the open descriptor (a device or FIFO is refused, never read);
- reads are capped while reading, never after (`/dev/zero` would otherwise be read until memory
  runs out);
- writes walk from the root one directory at a time with `O_NOFOLLOW`, so a symlinked
  directory on the way is refused instead of followed, and keep the replaced file's mode.
What is refused is a `Problem`, which the importer records and the status page shows.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import operator
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

LEAVES_ROOT = "leaves_root"
NOT_REGULAR = "not_regular"
UNREADABLE = "unreadable"
TOO_MANY_FILES = "too_many_files"
PATH_TOO_LONG = "path_too_long"
TOO_LARGE = "too_large"
# Not the file system's doing, listed with its problems all the same (the status page's "Not read"):
# a file whose import raised past its last committed line, a session whose rows could not be derived.
IMPORT_FAILED = "import_failed"
DERIVE_FAILED = "derive_failed"
REASONS = {
    LEAVES_ROOT: "skipped: leaves its root",
    NOT_REGULAR: "skipped: not a regular file",
    UNREADABLE: "cannot read",
    TOO_MANY_FILES: "stopped: too many files or folders",
    PATH_TOO_LONG: "skipped: path too long",
    TOO_LARGE: "cut: larger than the cap",
    IMPORT_FAILED: "stopped: the import failed",
    DERIVE_FAILED: "not derived: the rebuild failed",
}
# A path longer than this cannot be a key of the database's unique indexes (PostgreSQL's b-tree
# keeps at most 2,704 bytes per entry); such a file is reported, not imported.
MAX_PATH_BYTES = 2048
READ_BLOCK = 1 << 20
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class Problem:
    """A path under a root that was not read (or not wholly), and why."""

    path: str
    reason: str
    detail: str = ""

    @property
    def label(self) -> str:
        return REASONS.get(self.reason, self.reason)

    def __str__(self) -> str:
        return f"{self.label}: {self.path}" + (f" ({self.detail})" if self.detail else "")


class Refused(OSError):
    """A path that must not be read or written: outside its root, not a regular file, unreadable."""

    def __init__(self, problem: Problem):
        super().__init__(str(problem))
        self.problem = problem


def kind_of(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISLNK, "a symbolic link"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def real(path: Path | str) -> Path:
    """The real path, resolving every link that exists (a missing tail stays as written)."""
    return Path(os.path.realpath(path))


def inside(root: Path, path: Path) -> Path:
    """The real path of `path` when it lies inside the real path of `root`; else `Refused`.

    FileNotFoundError when it does not exist (callers treat that as "gone", not as a problem).
    """
    if len(os.fsencode(path)) > MAX_PATH_BYTES:
        raise Refused(Problem(str(path), PATH_TOO_LONG, f"{len(os.fsencode(path))} bytes"))
    try:
        resolved = Path(os.path.realpath(path, strict=True))
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(Problem(str(path), LEAVES_ROOT, "a symbolic link loop")) from None
        raise Refused(Problem(str(path), UNREADABLE, exc.strerror or str(exc))) from None
    base = real(root)
    if resolved != base and not resolved.is_relative_to(base):
        raise Refused(Problem(str(path), LEAVES_ROOT, f"links to {resolved}"))
    return resolved


def _descriptor_path(fd: int) -> Path | None:
    try:
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        return None  # no /proc (not Linux): the O_NOFOLLOW open of the resolved path stands alone


def open_fd(root: Path, path: Path) -> int:
    """A read-only descriptor of the regular file `path` inside `root` (see the module docstring)."""
    resolved = inside(root, path)
    try:
        fd = os.open(resolved, _OPEN_FLAGS)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # the leaf became a link after it was resolved
            raise Refused(
                Problem(str(path), LEAVES_ROOT, "replaced by a symbolic link while being read")
            ) from None
        raise Refused(Problem(str(path), UNREADABLE, exc.strerror or str(exc))) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused(Problem(str(path), NOT_REGULAR, kind_of(st.st_mode)))
        opened = _descriptor_path(fd)
        base = real(root)
        if opened is not None and opened != base and not opened.is_relative_to(base):
            raise Refused(Problem(str(path), LEAVES_ROOT, f"links to {opened}"))
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_file(root: Path, path: Path):
    """`open_fd` as a binary file object (unbuffered reads are the tailer's own)."""
    return os.fdopen(open_fd(root, path), "rb")


def read_capped(root: Path, path: Path, cap: int) -> bytes:
    """At most `cap` + 1 bytes of the file (one more than the cap says it was longer), read piece by
    piece so nothing beyond that is ever held."""
    with open_file(root, path) as fh:
        return read_upto(fh, cap + 1)


def read_upto(fh, limit: int) -> bytes:
    parts: list[bytes] = []
    left = limit
    while left > 0:
        piece = fh.read(min(READ_BLOCK, left))
        if not piece:
            break
        parts.append(piece)
        left -= len(piece)
    return b"".join(parts)


def is_dir(path: Path) -> bool:
    """`Path.is_dir` that never raises: a path too long or behind an untraversable directory is
    simply not a directory here (Python re-raises ENAMETOOLONG and EACCES)."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def is_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def exists(path: Path) -> bool:
    try:
        os.lstat(path)
    except (OSError, ValueError):
        return False
    return True


@dataclass
class Listing:
    """What a walk found under a root: the files wanted, in path order, and what it refused."""

    files: list[Path] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class Entry(NamedTuple):
    """One directory entry, its links resolved and confined: `kind` is "dir" or "file"."""

    directory: Path
    name: str
    kind: str
    # The file's (size, mtime_ns) as listed, its link followed: lets a reader skip an unchanged one.
    seen: tuple[int, int] = (0, 0)

    @property
    def path(self) -> Path:
        # Made when asked for: an idle pass lists thousands of entries and opens none of them.
        return self.directory / self.name


BY_NAME = operator.attrgetter("name")  # a listing of thousands sorted without a Python call per entry


def entries(
    root: Path, directory: Path, problems: list[Problem], *, want: Callable[[str], bool] = lambda name: True
) -> Iterator[Entry]:
    """The entries of `directory` (inside `root`), sorted by name. A link is followed only when its
    target is inside the root; anything else that `want`s its name is reported in `problems`.
    Devices, FIFOs and sockets are never yielded."""
    try:
        with os.scandir(directory) as scan:
            found = sorted(scan, key=BY_NAME)
    except FileNotFoundError:
        return
    except OSError as exc:
        problems.append(Problem(str(directory), UNREADABLE, exc.strerror or str(exc)))
        return
    for item in found:
        try:
            if item.is_symlink():
                try:
                    target = inside(root, Path(item.path))
                except FileNotFoundError:
                    continue  # a dangling link: nothing to read
                except Refused as refused:
                    problems.append(refused.problem)  # whatever its name: a way out of the root is news
                    continue
                mode = (st := os.stat(target)).st_mode
            elif item.is_dir(follow_symlinks=False):  # the kind the listing read: no stat
                mode = stat.S_IFDIR
            else:
                mode = (st := item.stat(follow_symlinks=False)).st_mode
        except OSError as exc:
            if want(item.name):
                problems.append(Problem(item.path, UNREADABLE, exc.strerror or str(exc)))
            continue
        if stat.S_ISDIR(mode):
            yield Entry(directory, item.name, "dir")
        elif stat.S_ISREG(mode):
            yield Entry(directory, item.name, "file", (st.st_size, st.st_mtime_ns))
        elif want(item.name):
            problems.append(Problem(item.path, NOT_REGULAR, kind_of(mode)))


def walk(
    root: Path,
    *,
    want: Callable[[str], bool] = lambda name: True,
    prune: Callable[[str], bool] = lambda name: False,
    max_files: int | None = None,
    max_dirs: int | None = None,
    start: Path | None = None,
) -> Listing:
    """Every regular file under `root` (or under `start`, a folder inside it) whose name is
    wanted, depth first in path order; links are followed only inside the root, each directory
    once (a link loop ends). At `max_files` wanted files or `max_dirs` folders the walk stops and
    says so (a root that is really a home or `/` must not be walked to its end)."""
    listing = Listing()
    seen: set[tuple[int, int]] = set()
    stack = [start or root]
    while stack:
        if max_dirs is not None and len(seen) >= max_dirs:
            listing.problems.append(Problem(str(root), TOO_MANY_FILES, f"more than {max_dirs:,} folders"))
            break
        directory = stack.pop()
        try:
            st = os.stat(directory)
        except OSError as exc:
            listing.problems.append(Problem(str(directory), UNREADABLE, exc.strerror or str(exc)))
            continue
        if (st.st_dev, st.st_ino) in seen:
            continue  # reached again through a link
        seen.add((st.st_dev, st.st_ino))
        subdirs = []
        for entry in entries(root, directory, listing.problems, want=want):
            if entry.kind == "dir":
                if not prune(entry.name):
                    subdirs.append(entry.path)
                continue
            if not want(entry.name):
                continue
            if max_files is not None and len(listing.files) >= max_files:
                listing.problems.append(Problem(str(root), TOO_MANY_FILES, f"more than {max_files:,} files"))
                return listing
            listing.files.append(entry.path)
        stack.extend(reversed(subdirs))
    listing.files.sort()
    return listing


# --- writes ---------------------------------------------------------------------------------------


def _relative(root: Path, path: Path) -> tuple[str, ...]:
    # `path.relative_to(root).parts` compared part by part, as relative_to does (a path is inside
    # the root when the root's parts start it), without building the paths: it was half of writing
    # a cold pass's 8,955 candidate files.
    head, full = root.parts, path.parts
    if full[: len(head)] != head:
        raise Refused(Problem(str(path), LEAVES_ROOT, f"not inside {root}"))
    parts = full[len(head) :]
    if not parts or any(part in ("", ".", "..") for part in parts):
        raise Refused(Problem(str(path), LEAVES_ROOT, f"not a file inside {root}"))
    return parts


def _open_parent(root: Path, parts: tuple[str, ...], *, create: bool) -> int:
    """A descriptor of the directory holding `parts[-1]`, reached from `root` one real directory
    at a time; a symbolic link or a non-directory on the way is refused."""
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise Refused(Problem(str(root), UNREADABLE, exc.strerror or str(exc))) from None
    walked = root
    for part in parts[:-1]:
        walked = walked / part
        try:
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(part, 0o777, dir_fd=fd)
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise Refused(
                    Problem(
                        str(walked),
                        LEAVES_ROOT,
                        "a symbolic link or not a directory: waysweb writes only into real "
                        "directories inside the repository",
                    )
                ) from None
            if isinstance(exc, FileNotFoundError):
                raise
            raise Refused(Problem(str(walked), UNREADABLE, exc.strerror or str(exc))) from None
        os.close(fd)
        fd = child
    return fd


def write_atomic(root: Path, path: Path, data: bytes) -> None:
    """Replace `path` (inside `root`) with `data`: a reader sees the old file or the new one, never
    half (temp file, fsync, rename, fsync of the directory; knowledge-and-records.md §5.2).

    Only real directories inside `root` are written into; an existing file keeps its mode (a new
    one gets the umask's); a symlink or non-regular file at `path` is refused, never followed.
    """
    parts = _relative(root, path)
    dfd = _open_parent(root, parts, create=True)
    try:
        temp = _write_temp(dfd, path, parts[-1], data, 0, fsync=True)
        try:
            os.replace(temp.temp, temp.name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            _discard(dfd, [temp])
            raise
        os.fsync(dfd)  # the rename itself survives a power cut
    finally:
        os.close(dfd)


def _syncfs_call() -> Callable[[int], int] | None:
    """libc's syncfs(2), which Python's `os` does not offer: one flush of the file system holding a
    descriptor. None where there is none (not Linux): each file is then fsynced by itself."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        call = libc.syncfs
    except (OSError, AttributeError):
        return None
    call.argtypes = [ctypes.c_int]
    call.restype = ctypes.c_int
    return call


_SYNCFS = _syncfs_call()


def _flush_file_system(fd: int) -> None:
    if _SYNCFS(fd) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


class _Pending(NamedTuple):
    index: int
    temp: str
    name: str
    seen: tuple[int, int]  # (size, mtime_ns) of the written file: a rename keeps both


def write_many(
    root: Path, writes: Sequence[tuple[Path, bytes]], seen: dict[int, tuple[int, int]] | None = None
) -> dict[int, OSError]:
    """`write_atomic` for many files at once: what each write guarantees holds for each (a reader
    sees the old file or the new one; confined to real directories inside `root`; a symlink or
    non-regular file refused; the mode kept), but the file system is flushed once for all of them
    instead of twice per file: every temp file is written, then the file system holding `root` is
    synced (syncfs), then each is renamed, then each directory touched is fsynced once.

    Returns the writes that were not made, by their index in `writes` (`Refused`, or the OSError);
    every other write is done. `seen`, when given, gets each write made as (size, mtime_ns) by its
    index: the file as written, from its own descriptor (a stat after the rename could be of a file
    someone replaced since), so that a reader listing it later knows whether it is still that file.
    """
    failed: dict[int, OSError] = {}
    by_directory: dict[tuple[str, ...], list[tuple[int, tuple[str, ...], bytes]]] = {}
    for index, (path, data) in enumerate(writes):
        try:
            parts = _relative(root, path)
        except Refused as refused:
            failed[index] = refused
            continue
        by_directory.setdefault(parts[:-1], []).append((index, parts, data))
    opened: list[tuple[int, list[_Pending]]] = []
    try:
        for group in by_directory.values():
            try:
                dfd = _open_parent(root, group[0][1], create=True)
            except OSError as exc:
                failed.update((index, exc) for index, _, _ in group)
                continue
            pending: list[_Pending] = []
            opened.append((dfd, pending))
            _sweep_stale_temps(dfd)
            for index, parts, data in group:
                try:
                    pending.append(
                        _write_temp(dfd, root / Path(*parts), parts[-1], data, index, fsync=_SYNCFS is None)
                    )
                except OSError as exc:
                    failed[index] = exc
        written = [p for _, pending in opened for p in pending]
        if written:
            try:
                if _SYNCFS is not None:
                    # The temp files' bytes, all at once: one flush per file system written to (a
                    # folder under the root may be another mount).
                    for fd in {os.fstat(dfd).st_dev: dfd for dfd, pending in opened if pending}.values():
                        _flush_file_system(fd)
            except OSError as exc:
                failed.update((p.index, exc) for p in written)
                for dfd, pending in opened:
                    _discard(dfd, pending)
                    pending.clear()
        for dfd, pending in opened:
            renamed = False
            for p in pending:
                try:
                    os.replace(p.temp, p.name, src_dir_fd=dfd, dst_dir_fd=dfd)
                    renamed = True
                    if seen is not None:
                        seen[p.index] = p.seen
                except OSError as exc:
                    failed[p.index] = exc
                    with contextlib.suppress(OSError):
                        os.unlink(p.temp, dir_fd=dfd)
            if renamed:
                try:
                    os.fsync(dfd)  # the renames themselves survive a power cut
                except OSError as exc:
                    failed.update((p.index, exc) for p in pending)
    except BaseException:
        for dfd, pending in opened:
            _discard(dfd, pending)
        raise
    finally:
        for dfd, _ in opened:
            os.close(dfd)
    return failed


def _write_temp(dfd: int, path: Path, name: str, data: bytes, index: int, *, fsync: bool) -> _Pending:
    """`data` in a new temp file beside `name` (in the directory `dfd`), with the mode of the file it
    replaces (a symlink or non-regular file there is refused); fsynced when `fsync`."""
    mode = None
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        pass
    else:
        if not stat.S_ISREG(st.st_mode):
            raise Refused(
                Problem(str(path), NOT_REGULAR, f"{kind_of(st.st_mode)}: waysweb replaces only regular files")
            )
        mode = stat.S_IMODE(st.st_mode)
    temp = f".tmp.{name[:100]}.{os.getpid()}.{os.urandom(4).hex()}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=dfd)
    try:
        with os.fdopen(fd, "wb") as fh:
            if mode is not None:
                os.fchmod(fh.fileno(), mode)
            fh.write(data)
            fh.flush()
            if fsync:
                os.fsync(fh.fileno())
            st = os.fstat(fh.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dfd)
        raise
    return _Pending(index, temp, name, (st.st_size, st.st_mtime_ns))


def _sweep_stale_temps(dfd: int) -> None:
    """Remove the temp files a killed writer left in the directory `dfd` (`_write_temp` names them
    `.tmp.<name>.<pid>.<random>`): a batch killed between its writes and its renames leaves one per
    file. A live process's temps are its own, kept; a recycled pid only delays the sweep."""
    with os.scandir(dfd) as scan:
        names = [item.name for item in scan if item.name.startswith(".tmp.")]
    for name in names:
        pid = name.rsplit(".", 2)[-2] if name.count(".") >= 4 else ""
        if not pid.isdigit() or _alive(int(pid)):
            continue
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=dfd)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def _discard(dfd: int, pending: list[_Pending]) -> None:
    for p in pending:
        with contextlib.suppress(OSError):
            os.unlink(p.temp, dir_fd=dfd)


def remove(root: Path, path: Path) -> None:
    """Remove the file `path` inside `root` (a link is removed itself, never its target)."""
    parts = _relative(root, path)
    try:
        dfd = _open_parent(root, parts, create=False)
    except FileNotFoundError:
        return
    try:
        os.unlink(parts[-1], dir_fd=dfd)
    except FileNotFoundError:
        pass
    finally:
        os.close(dfd)


def read_for_edit(root: Path, path: Path, cap: int) -> bytes:
    """The current bytes of a file a person is about to change, read through the same confinement
    as the write that follows (its parents real directories inside `root`, the file regular)."""
    parts = _relative(root, path)
    dfd = _open_parent(root, parts, create=False)
    try:
        try:
            fd = os.open(parts[-1], _OPEN_FLAGS, dir_fd=dfd)
        except OSError as exc:
            if isinstance(exc, FileNotFoundError):
                raise
            if exc.errno == errno.ELOOP:
                raise Refused(Problem(str(path), LEAVES_ROOT, "a symbolic link")) from None
            raise Refused(Problem(str(path), UNREADABLE, exc.strerror or str(exc))) from None
    finally:
        os.close(dfd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused(Problem(str(path), NOT_REGULAR, kind_of(st.st_mode)))
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as fh:
        return read_upto(fh, cap + 1)
