//! The `kanon` command line: parse → run → exit code.

use std::process::ExitCode;

mod cli;
mod commands;
mod progress;

fn main() -> ExitCode {
    tune_allocator();
    default_device_cpu();
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

/// kanon names every device it computes on (`--device`), but burn itself asks for its default
/// device in one place: it loads a resumed run's optimiser state there (and moves it to the
/// parameters' device at the next step). In a GPU build that default is the GPU whether or not
/// the machine has one, so a resume with `--device cpu` on a machine without a driver would die
/// in the CUDA loader. The CPU is always there; `BURN_DEVICE`, when set, wins.
#[allow(unsafe_code)]
fn default_device_cpu() {
    if std::env::var_os("BURN_DEVICE").is_none() {
        // SAFETY: called first thing in `main`, before any other thread exists.
        unsafe { std::env::set_var("BURN_DEVICE", "flex") };
    }
}

/// glibc's malloc hands blocks above a dynamic threshold straight to `mmap` and returns freed
/// heap tops to the kernel; the tagger allocates and frees tensors of a few MiB per layer, so
/// every forward pass page-faulted and zeroed fresh memory (15 % of inference time in `perf`).
/// Keeping blocks below 32 MiB in the heap and trimming only above 1 GiB made inference 1.1 to
/// 1.5 times faster at the same peak RSS (docs/benchmarks.md, "Speed against PyTorch"). `GLIBC_TUNABLES`,
/// when set, wins.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn tune_allocator() {
    if std::env::var_os("GLIBC_TUNABLES").is_some() {
        return;
    }
    // SAFETY: mallopt only changes malloc's parameters; it is called before any other thread
    // exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn tune_allocator() {}
