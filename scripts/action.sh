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
  # The architecture too: a matrix over x64 and arm64 runners of one OS
  # must not restore each other's binary.
  out key "toolaudit-${RUNNER_OS:-local}-${RUNNER_ARCH:-$(uname -m)}-${hash}"
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

  # Code scanning gets every finding: it shows on a pull request only the
  # alerts on changed lines anyway, and a SARIF file filtered to the diff
  # would make it close the base branch's other alerts as fixed. So the
  # SARIF scan has no --diff-base; the second scan, for annotations, the
  # job summary and the exit code, has it.
  local code=0
  "$bin" scan "${paths[@]}" "${args[@]}" --format sarif --category "${INPUT_CATEGORY:-toolaudit}" \
    --output "$sarif" || code=$?
  if [ "$code" -ge 2 ]; then
    out exit-code "$code"
    echo "::error title=toolaudit::the scan failed (exit code $code); see the messages above"
    exit "$code"
  fi
  local -a diff=()
  local base="${INPUT_DIFF_BASE:-}"
  if [ -z "$base" ] && [ -n "${GITHUB_BASE_REF:-}" ]; then
    base="origin/$GITHUB_BASE_REF"
  fi
  if [ -n "$base" ] && [ "$base" != "none" ]; then
    diff=(--diff-base "$base")
  fi
  local summary="$RUNNER_TEMP/toolaudit-summary.md" json="$RUNNER_TEMP/toolaudit.json"
  # -q: the messages about the scan itself were printed once above.
  code=0
  "$bin" scan "${paths[@]}" "${args[@]}" "${diff[@]}" --format github -q \
    --also-write "markdown=$summary" --also-write "json=$json" || code=$?
  if [ "$code" -ge 2 ]; then
    out exit-code "$code"
    echo "::error title=toolaudit::the scan failed (exit code $code); see the messages above"
    exit "$code"
  fi
  cat "$summary" >> "$GITHUB_STEP_SUMMARY"

  local findings
  findings=$(sed -n 's/^    "findings": \([0-9]*\),$/\1/p' "$json" | head -n 1)
  out sarif-file "$sarif"
  out findings "${findings:-0}"
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
