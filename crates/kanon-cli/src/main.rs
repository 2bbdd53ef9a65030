//! The `kanon` command line: parse → run → exit code.

use std::process::ExitCode;

mod cli;
mod commands;
mod progress;

fn main() -> ExitCode {
    let args = cli::Cli::parse_args();
    match commands::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("error: {err:#}");
            }
            ExitCode::from(2)
        }
    }
}
