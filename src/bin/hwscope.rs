//! The `hwscope` command line; the code is the library's `cli` module.

fn main() -> std::process::ExitCode {
    hwscope::cli::main()
}
