//! Any text, read as a Python file: parsed, its tools extracted,
//! every rule run and the human and SARIF reports rendered. Must not panic
//! or hang (libFuzzer's -timeout catches a hang).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolaudit::discover::FileKind;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        toolaudit::engine::check_text(FileKind::Python, text);
    }
});
