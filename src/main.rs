//! The `trajscope` binary: parses the command line and hands over to `cli`.

mod cli;

fn main() -> std::process::ExitCode {
    restore_sigpipe();
    cli::main()
}

/// Rust ignores SIGPIPE, which turns `trajscope ls | head` into a "Broken pipe" panic at the
/// first write after `head` exits. Restoring the default makes trajscope end quietly there,
/// as other Unix tools do.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called once at start-up before any thread exists; SIG_DFL is a valid handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
