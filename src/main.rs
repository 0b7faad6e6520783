fn main() -> std::process::ExitCode {
    toolaudit::cli::main()
}
