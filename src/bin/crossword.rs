//! The `crossword` binary: mimalloc as the allocator, then the command line of the crossword
//! service (`crossword_service::cli`).

use std::process::ExitCode;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    crossword_service::cli::main()
}
