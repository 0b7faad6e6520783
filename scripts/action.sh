#!/usr/bin/env bash
# The shell steps of the toolaudit GitHub Action (action.yml), kept here so
# they can be tested under a simulated GITHUB_* environment
# (tests/suite/action.rs). Inputs arrive as INPUT_* variables, never as
# expressions pasted into shell code.
#
#   action.sh cache-key   prints key=… to $GITHUB_OUTPUT
#   action.sh install     builds toolaudit into $TOOLAUDIT_HOME/bin
#   action.sh scan        runs the scan, writes outputs, annotations and the job summary
#   action.sh finish      exits with the scan's exit code
set -euo pipefail

: "${GITHUB_ACTION_PATH:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TOOLAUDIT_HOME:=$HOME/.cache/toolaudit-action}"
: "${RUNNER_TEMP:=${TMPDIR:-/tmp}}"
: "${GITHUB_OUTPUT:=/dev/null}"
: "${GITHUB_STEP_SUMMARY:=/dev/null}"

out() { printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"; }

cache_key() {
  local hash
  hash=$(cd "$GITHUB_ACTION_PATH" && find Cargo.toml Cargo.lock src rules -type f -print0 \
    | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-20)
  out key "toolaudit-${RUNNER_OS:-local}-${hash}"
}

install() {
  if ! command -v cargo > /dev/null; then
    echo "::error title=toolaudit::cargo is needed to build toolaudit; add a Rust toolchain step before this action"
    exit 2
  fi
  cargo install --locked --path "$GITHUB_ACTION_PATH" --root "$TOOLAUDIT_HOME"
}

# Prints "true" when the SARIF file may be uploaded, or a notice and "false".
may_upload() {
  if [ "${INPUT_SARIF_UPLOAD:-true}" != "true" ]; then
    echo false
    return
  fi
  if [ "${GITHUB_ACTOR:-}" = "dependabot[bot]" ]; then
    echo "::notice title=toolaudit::SARIF upload skipped: Dependabot pull requests get a read-only token that cannot write security events" >&2
    echo false
    return
  fi
  if [ -n "${PR_HEAD_REPO:-}" ] && [ "$PR_HEAD_REPO" != "${GITHUB_REPOSITORY:-}" ]; then
    echo "::notice title=toolaudit::SARIF upload skipped: pull requests from forks get a read-only token that cannot write security events; the findings are in the annotations and the job summary" >&2
    echo false
    return
  fi
  echo true
}

scan() {
  local bin="${TOOLAUDIT:-$TOOLAUDIT_HOME/bin/toolaudit}"
  local sarif="$RUNNER_TEMP/toolaudit.sarif"
  local -a paths=() args=()
  # Paths are split on white space; quoting inside the input is not supported.
  read -r -d '' -a paths <<< "${INPUT_PATHS:-.}" || true
  [ ${#paths[@]} -gt 0 ] || paths=(.)
  [ -n "${INPUT_TARGETS:-}" ] && args+=(--target "$INPUT_TARGETS")
  [ -n "${INPUT_FAIL_ON:-}" ] && args+=(--fail-on "$INPUT_FAIL_ON")
  [ -n "${INPUT_CONFIG:-}" ] && args+=(--config "$INPUT_CONFIG")
  [ -n "${INPUT_BASELINE:-}" ] && args+=(--baseline "$INPUT_BASELINE")
  local base="${INPUT_DIFF_BASE:-}"
  if [ -z "$base" ] && [ -n "${GITHUB_BASE_REF:-}" ]; then
    base="origin/$GITHUB_BASE_REF"
  fi
  if [ -n "$base" ] && [ "$base" != "none" ]; then
    args+=(--diff-base "$base")
  fi

  local code=0
  "$bin" scan "${paths[@]}" "${args[@]}" --format sarif --category "${INPUT_CATEGORY:-toolaudit}" \
    --output "$sarif" || code=$?
  if [ "$code" -ge 2 ]; then
    out exit-code "$code"
    echo "::error title=toolaudit::the scan failed (exit code $code); see the messages above"
    exit "$code"
  fi
  # The same scan again for annotations and the job summary (-q: the
  # messages about skipped files were printed once above).
  "$bin" scan "${paths[@]}" "${args[@]}" --format github -q || true
  "$bin" scan "${paths[@]}" "${args[@]}" --format markdown -q >> "$GITHUB_STEP_SUMMARY" || true

  local findings
  findings=$(grep -c '"ruleId"' "$sarif" || true)
  out sarif-file "$sarif"
  out findings "$findings"
  out exit-code "$code"
  out upload "$(may_upload)"
}

finish() {
  local code="${EXIT_CODE:-2}"
  if [ "$code" != "0" ]; then
    echo "toolaudit: exit code $code (findings at or above fail-on, or an error)"
  fi
  exit "$code"
}

case "${1:-}" in
  cache-key) cache_key ;;
  install) install ;;
  scan) scan ;;
  finish) finish ;;
  *) echo "usage: action.sh cache-key|install|scan|finish" >&2; exit 2 ;;
esac
