#!/usr/bin/env bash
# Fuzzes the JSON/JSONC, YAML, TOML, Rust and Python front-ends with cargo-fuzz (libFuzzer):
# each input is parsed, its tools extracted and linked, every rule run and
# the human and SARIF reports rendered (toolaudit::engine::check_text).
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]   # default: 30 s each of json yaml toml rust python
#
# Installs cargo-fuzz if missing. The corpus starts from the test fixtures
# and examples (fuzz/corpus/<target>, not committed); a crash is saved under
# fuzz/artifacts/<target>/ and this script exits non-zero. The machine's
# toolchain is stable: RUSTC_BOOTSTRAP lets cargo-fuzz use the sanitizer
# flags it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json yaml toml rust python)

if ! command -v cargo-fuzz > /dev/null; then
  cargo install cargo-fuzz --locked --version 0.13.2
fi
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-${CARGO_TARGET_DIR:-$HOME/.cache/toolaudit-target}-fuzz}"

seed() {
  local target="$1" dir="fuzz/corpus/$1"
  mkdir -p "$dir"
  local -a pattern
  case "$target" in
    json) pattern=(-name '*.json' -o -name '*.jsonc' -o -name '*.snap') ;;
    yaml) pattern=(-name '*.yaml' -o -name '*.yml') ;;
    toml) pattern=(-name '*.toml' ! -name 'Cargo.toml') ;;
    rust) pattern=(-name '*.rs') ;;
    python) pattern=(-name '*.py') ;;
  esac
  find tests/fixtures examples \( "${pattern[@]}" \) -type f -size -256k -print0 |
    while IFS= read -r -d '' f; do
      cp "$f" "$dir/$(printf '%s' "$f" | sha1sum | cut -c1-16)"
    done
}

for t in "${targets[@]}"; do
  seed "$t"
  echo "== fuzz $t for ${seconds}s"
  cargo fuzz run --sanitizer none "$t" "fuzz/corpus/$t" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 2>&1 |
    grep -E "^(==|#[0-9]+ +DONE|stat::number_of_executed_units|Done|INFO: (-max_total_time|seed)|.*(panicked|ERROR|deadly|crash|timeout|Test unit written))" || true
  if compgen -G "fuzz/artifacts/$t/*" > /dev/null; then
    echo "fuzz $t: failing inputs in fuzz/artifacts/$t/" >&2
    exit 1
  fi
done
