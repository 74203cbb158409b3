//! The `httpbench` binary: everything lives in the library.

fn main() -> std::process::ExitCode {
    httpbench::main()
}
