#!/usr/bin/env bash
# compare.sh OLD NEW [OUTDIR]: crawl every page of the sample and the fixtures with the code of two
# commits (crawl.py, taken from this checkout, run in a throwaway worktree of each) and diff them.
# Exit 0 when every page, export and introspect output is the same byte for byte (tokens masked).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
# The fixtures of this checkout, the same files for both commits (an old commit may predate them).
fixtures=$repo/tests/fixtures
out=${3:-$(mktemp -d /tmp/waysweb-compare.XXXX)}
for side in old new; do
  commit=$([ "$side" = old ] && echo "$1" || echo "$2")
  # The same path for both commits: the sample is read from the checkout and its paths are on pages.
  tree="$out/tree"
  git -C "$repo" worktree add --detach -q "$tree" "$commit"
  # One mtime for every file of the bundled sample: a checkout writes them whenever it gets to them,
  # and the importer reads the newest first, so entry keys (on pages, in URLs) followed the
  # checkout's timing from one crawl to the next. Equal, they are read in their listed order.
  find "$tree/sample/home" -exec touch -h -d @1790000000 {} +
  (cd "$tree" && uv sync --locked -q && uv run -q --with time-machine python "$here/crawl.py" "$out/$side" --fixtures "$fixtures")
  git -C "$repo" worktree remove --force "$tree"
done
if diff -r "$out/old" "$out/new" > "$out/diff.txt"; then
  echo "same: $(cat "$out"/new/*/*/_urls.txt | wc -l) URLs and every introspect output ($out)"
else
  echo "DIFFERENT: $(grep -c '^diff\|^Only' "$out/diff.txt") files differ; see $out/diff.txt" >&2
  exit 1
fi
