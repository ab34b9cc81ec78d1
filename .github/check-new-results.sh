#!/usr/bin/env bash
# The files a pull request adds or changes under data/, checked by the base branch's checker:
# data.check, the result schema, the claims and historical readers and the recipes' git history
# as the base has them, so a pull request cannot weaken the checks it is judged by. Only the
# pull request's recipes/ are taken with its files (a reviewed recipe change may come with
# results of its new version).
#
#   .github/check-new-results.sh BASE_REF     at the pull request's checkout, full history
#
# Every path is checked whatever its name (contrib/pull_request.py): a path that is no regular
# file (a symbolic link, a submodule) or none of a result, a claims file and a historical
# source's file is refused, one line each; results are checked as contributions, then the
# claims map and every historical source are read as the site reads them, strictly
# (evidence/check_sources.py).
#
# PYTHON: an interpreter with the project's dependencies installed (default: python3).
set -euo pipefail
base=${1:?usage: $0 BASE_REF (for example origin/main)}
python=${PYTHON:-python3}
repo=$(pwd)

tree=$(mktemp -d)
raw=$(mktemp)
cleanup() {
  git -C "$repo" worktree remove --force "$tree" 2>/dev/null || true
  rm -rf "$tree" "$raw"
}
trap cleanup EXIT
# -z: every path as git holds it, neither quoted nor escaped (without it, a name holding a
# non-ASCII byte, " or \ came quoted, matched no pattern and went unchecked); --raw: each
# file's mode, so that a link is refused, never followed.
git diff --raw -z --no-renames --no-abbrev "$base...HEAD" -- data/ >"$raw"
if [ ! -s "$raw" ]; then
  echo "no file under data/ is added or changed: nothing to check"
  exit 0
fi

# The pull request's recipes/ join its files: only directories and regular files, since a link
# would have the checker read whatever file of this machine it points at.
odd=$(find recipes ! -type d ! -type f -printf '%p: not a regular file or directory (a link?); expected recipes/<name>/recipe.toml files\n')
if [ -n "$odd" ]; then
  printf '%s\n' "$odd"
  exit 1
fi
git worktree add --quiet --detach "$tree" "$base"
rm -rf "$tree/recipes" && cp -a recipes "$tree/recipes"
echo "checking the files this pull request adds or changes under data/ with the checker of $base"
cd "$tree"
status=0
PYTHONPATH="$tree/src" "$python" -m tuninglab.contrib.pull_request "$repo" "$raw" || status=1
if ! git -C "$repo" diff --quiet --no-renames "$base...HEAD" -- data/claims data/historical; then
  PYTHONPATH="$tree/src" "$python" -m tuninglab.evidence.check_sources || status=1
fi
exit "$status"
