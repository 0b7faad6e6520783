fn main() -> std::process::ExitCode {
    let code = toolaudit::cli::main();
    // Test hook: the process's own peak resident set (VmHWM starts anew at
    // exec, unlike a parent's rusage of the child), for the memory tests.
    if std::env::var_os("__TOOLAUDIT_TEST_PEAK_RSS").is_some()
        && let Some(kib) = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmHWM:"))
                    .map(|v| v.trim().trim_end_matches("kB").trim().to_string())
            })
    {
        eprintln!("toolaudit-test: peak-rss-kib {kib}");
    }
    code
}
