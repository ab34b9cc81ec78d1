#!/usr/bin/env bash
# The result files a pull request adds, checked by the base branch's checker: data.check, the
# result schema and the recipes' git history as the base has them, so a pull request cannot
# weaken the checks it is judged by. Only the pull request's recipes/ are taken with its
# results (a reviewed recipe change may come with results of its new version).
#
#   .github/check-new-results.sh BASE_REF     at the pull request's checkout, full history
#
# PYTHON: an interpreter with the project's dependencies installed (default: python3).
set -euo pipefail
base=${1:?usage: $0 BASE_REF (for example origin/main)}
python=${PYTHON:-python3}
repo=$(pwd)

added=()
while IFS= read -r path; do
  case $path in data/historical/*) ;; data/*/*.json) added+=("$path") ;; esac
done < <(git diff --no-renames --diff-filter=A --name-only "$base...HEAD" -- data/)
if [ ${#added[@]} -eq 0 ]; then
  echo "no new result files under data/"
  exit 0
fi

tree=$(mktemp -d)
cleanup() { git -C "$repo" worktree remove --force "$tree" 2>/dev/null || true; rm -rf "$tree"; }
trap cleanup EXIT
git worktree add --quiet --detach "$tree" "$base"
rm -rf "$tree/recipes" && cp -a recipes "$tree/recipes"
for path in "${added[@]}"; do
  mkdir -p "$tree/$(dirname "$path")" && cp "$path" "$tree/$path"
done
echo "checking ${#added[@]} new result file(s) with the checker of $base"
cd "$tree"
# contributions=True: a pull request adds contributed results only (data.submit's block), none
# from a host of the project's own results (data.check --contributions).
PYTHONPATH="$tree/src" "$python" -c \
  'import sys; from tuninglab import cli; cli.guard(cli.data_check, sys.argv[1:], print, True)' \
  "${added[@]}"
