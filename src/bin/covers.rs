//! The `covers` binary: mimalloc as the allocator, then the command line of the cover service
//! (`covers_service::cli`).

use std::process::ExitCode;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    covers_service::cli::main()
}
