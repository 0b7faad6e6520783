#!/usr/bin/env bash
# Checks that need tools from PyPI and crates.io, run by .ci/run:
#   - zizmor (offline) and action-validator on action.yml and on the
#     workflow shown in README.md, pinned to this commit;
#   - pre-commit try-repo on .pre-commit-hooks.yaml: a throwaway repository
#     with a broken tool manifest must fail, a clean one must pass.
# Installs what it needs at pinned versions; installs nothing by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

ZIZMOR_VERSION=1.32.0
PRE_COMMIT_VERSION=4.7.0
ACTION_VALIDATOR_VERSION=0.9.0
tools="${TOOLAUDIT_TOOLS:-$HOME/.cache/toolaudit-tools}"
export PATH="$tools/bin:$PATH"

have_version() { "$1" --version 2>/dev/null | grep -q "$2"; }
if ! have_version zizmor "$ZIZMOR_VERSION" || ! have_version pre-commit "$PRE_COMMIT_VERSION"; then
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
    "zizmor==$ZIZMOR_VERSION" "pre-commit==$PRE_COMMIT_VERSION"
fi
if ! have_version action-validator "$ACTION_VALIDATOR_VERSION"; then
  cargo install --locked --quiet "action-validator@$ACTION_VALIDATOR_VERSION" --root "$tools"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== the README's workflow, pinned to this commit"
mkdir -p "$work/wf/.github/workflows"
workflow="$work/wf/.github/workflows/toolaudit.yml"
sha=$(git rev-parse HEAD)
awk '/<!-- workflow:begin -->/{on=1; next} /<!-- workflow:end -->/{on=0} on' README.md \
  | sed '/^```/d' | sed "s/<full commit SHA>/$sha/" > "$workflow"
grep -q "toolaudit/toolaudit@$sha" "$workflow"

echo "== zizmor --offline"
# Without --strict-collection zizmor only warns about an input it cannot
# parse; also require that it audited both files.
zizmor --offline --no-progress --strict-collection action.yml "$workflow" 2>&1 | tee "$work/zizmor.log"
grep -q "completed action.yml" "$work/zizmor.log"
grep -q "completed $workflow" "$work/zizmor.log"

echo "== action-validator"
action-validator action.yml
action-validator "$workflow"

echo "== pre-commit try-repo"
try_repo() { # $1: fixture to commit, $2: expected outcome (fail|pass), $3: its name
  local name="${3:-tools.json}"
  local dir="$work/precommit-$2-$name"
  mkdir -p "$dir"
  git -C "$dir" init -q
  cp "$1" "$dir/$name"
  git -C "$dir" add "$name"
  local code=0
  (cd "$dir" && pre-commit try-repo "$repo" toolaudit --all-files --color never) > "$dir.log" 2>&1 || code=$?
  if { [ "$2" = fail ] && [ "$code" -eq 0 ]; } || { [ "$2" = pass ] && [ "$code" -ne 0 ]; }; then
    cat "$dir.log"
    echo "pre-commit try-repo on $1: expected the hook to $2 (exit code $code)" >&2
    exit 1
  fi
  grep -E "toolaudit\.+(Passed|Failed)" "$dir.log"
}
try_repo tests/fixtures/names/bad.json fail
try_repo tests/fixtures/clean/tools-list.json pass
# A file type pre-commit has no tag for still runs the hook.
try_repo tests/fixtures/names/bad.json fail tools.jsonc

echo "integrations passed"
