//! Where the tagger runs: the CPU, a CUDA GPU or a wgpu device (Vulkan on Linux), chosen by name
//! (`--device cpu|cuda[:N]|wgpu[:N]|auto`).
//!
//! Every model, training and inference path takes a burn [`Device`] and is the same code on each;
//! this module only turns the user's choice into one. A build has the CPU always, CUDA with the
//! `cuda` feature and wgpu (WGSL kernels on Vulkan, Metal or DX12) with `wgpu`; naming a device the
//! build lacks, or one the machine lacks, is an error that says which.
//!
//! ```
//! use kanon_tagger::device::DeviceChoice;
//!
//! let choice: DeviceChoice = "cuda:1".parse().unwrap();
//! assert_eq!(choice, DeviceChoice::Cuda(1));
//! assert_eq!(choice.to_string(), "cuda:1");
//! // The CPU is always there.
//! let cpu = DeviceChoice::Cpu.resolve().unwrap();
//! assert!(kanon_tagger::device::is_cpu(&cpu));
//! ```

use std::fmt;
use std::str::FromStr;

use burn::tensor::Device;

use crate::error::{Error, Result};

/// A device as the user names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeviceChoice {
    /// The first CUDA GPU, else the first wgpu device that is a real card (not a software renderer
    /// such as Mesa's lavapipe), else the CPU.
    #[default]
    Auto,
    /// burn's Flex backend: every core, no GPU.
    Cpu,
    /// The CUDA GPU of this index (`cuda` is `cuda:0`).
    Cuda(usize),
    /// The wgpu device of this index on the graphics API wgpu picks (Vulkan on Linux): discrete
    /// GPUs first, then integrated, virtual and software ones (`wgpu` is `wgpu:0`).
    Wgpu(usize),
}

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceChoice::Auto => f.write_str("auto"),
            DeviceChoice::Cpu => f.write_str("cpu"),
            DeviceChoice::Cuda(index) => write!(f, "cuda:{index}"),
            DeviceChoice::Wgpu(index) => write!(f, "wgpu:{index}"),
        }
    }
}

impl FromStr for DeviceChoice {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let invalid = || {
            Error::Setting(format!(
                "unknown device {s:?}: expected auto, cpu, cuda[:N] or wgpu[:N]"
            ))
        };
        let (name, index) = match s.split_once(':') {
            Some((name, index)) => (name, Some(index.parse::<usize>().map_err(|_| invalid())?)),
            None => (s, None),
        };
        match (name.to_ascii_lowercase().as_str(), index) {
            ("auto", None) => Ok(DeviceChoice::Auto),
            ("cpu", None) => Ok(DeviceChoice::Cpu),
            ("cuda", index) => Ok(DeviceChoice::Cuda(index.unwrap_or(0))),
            ("wgpu", index) => Ok(DeviceChoice::Wgpu(index.unwrap_or(0))),
            _ => Err(invalid()),
        }
    }
}

/// The GPU runtimes this build has, by name: `["cuda", "wgpu"]` in a build with both features.
pub fn compiled_runtimes() -> Vec<&'static str> {
    let mut runtimes = Vec::new();
    if cfg!(feature = "cuda") {
        runtimes.push("cuda");
    }
    if cfg!(feature = "wgpu") {
        runtimes.push("wgpu");
    }
    runtimes
}

/// The CPU backend: where a job without a device choice runs (the detectors without a KG).
pub fn cpu() -> Device {
    Device::flex()
}

/// Whether `device` is the CPU backend (autodiff or not).
pub fn is_cpu(device: &Device) -> bool {
    *device == Device::flex()
}

/// Seeds the random streams a run on `device` draws from: the device's own (dropout) and, on a
/// GPU, the CPU's too, where `weights::load_pretrained` draws fresh parameters so that a
/// seed gives the same initial model on every device.
pub fn seed(device: &Device, seed: u64) {
    device.seed(seed);
    if !is_cpu(device) {
        Device::flex().seed(seed);
    }
}

impl DeviceChoice {
    /// The burn device this choice names on this machine.
    pub fn resolve(self) -> Result<Device> {
        match self {
            DeviceChoice::Cpu => Ok(Device::flex()),
            DeviceChoice::Cuda(index) => cuda(index),
            DeviceChoice::Wgpu(index) => wgpu(index),
            DeviceChoice::Auto => Ok(best_available()),
        }
    }
}

/// The device `auto` picks (see [`DeviceChoice::Auto`]).
pub fn best_available() -> Device {
    #[cfg(feature = "cuda")]
    if let Some(device) = cuda_devices().into_iter().next() {
        return device;
    }
    #[cfg(feature = "wgpu")]
    {
        // A software renderer has no card behind it; the CPU backend beats it by far.
        let card = wgpu_devices().into_iter().find(|device| {
            device
                .identity()
                .is_some_and(|identity| identity.physical.is_some())
        });
        if let Some(device) = card {
            return device;
        }
    }
    Device::flex()
}

/// What a device is, for a log line: `NVIDIA H100 PCIe (ptx_sm90)`, `cpu (16 threads)`.
pub fn describe(device: &Device) -> String {
    if is_cpu(device) {
        return format!("cpu ({} threads)", rayon::current_num_threads());
    }
    #[cfg(any(feature = "cuda", feature = "wgpu"))]
    if let Some(identity) = device.identity() {
        return format!("{} ({})", identity.name, identity.fingerprint);
    }
    format!("{device:?}")
}

#[cfg(feature = "cuda")]
fn cuda_devices() -> Vec<Device> {
    Device::enumerate(burn::tensor::DeviceType::Cuda)
        .into_iter()
        .collect()
}

#[cfg(feature = "wgpu")]
fn wgpu_devices() -> Vec<Device> {
    Device::enumerate(burn::tensor::DeviceType::Wgpu)
        .into_iter()
        .collect()
}

fn cuda(index: usize) -> Result<Device> {
    #[cfg(feature = "cuda")]
    return pick(
        cuda_devices(),
        "cuda",
        index,
        "no NVIDIA driver found: libcuda.so cannot be loaded",
    );
    #[cfg(not(feature = "cuda"))]
    Err(not_compiled("cuda", index))
}

fn wgpu(index: usize) -> Result<Device> {
    #[cfg(feature = "wgpu")]
    return pick(
        wgpu_devices(),
        "wgpu",
        index,
        "on Linux: is the Vulkan loader, libvulkan.so.1, and a Vulkan driver installed?",
    );
    #[cfg(not(feature = "wgpu"))]
    Err(not_compiled("wgpu", index))
}

/// Device `index` of a runtime's `devices`, or an error saying how many there are (and, when
/// there are none, `none_hint`).
#[cfg(any(feature = "cuda", feature = "wgpu"))]
fn pick(devices: Vec<Device>, runtime: &str, index: usize, none_hint: &str) -> Result<Device> {
    let count = devices.len();
    devices.into_iter().nth(index).ok_or_else(|| {
        let hint = if count == 0 {
            format!(" ({none_hint})")
        } else {
            String::new()
        };
        Error::Setting(format!(
            "--device {runtime}:{index}: this machine has {count} {runtime} device(s){hint}"
        ))
    })
}

#[allow(dead_code)] // Unused in a build with every GPU feature.
fn not_compiled(runtime: &str, index: usize) -> Error {
    Error::Setting(format!(
        "--device {runtime}:{index}: this kanon was built without the `{runtime}` feature; \
         build it with `cargo build --release -p kanon-cli --features {runtime}` \
         (docs/gpu.md)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in ["auto", "cpu", "cuda:0", "cuda:3", "wgpu:0", "wgpu:2"] {
            let choice: DeviceChoice = name.parse().unwrap();
            assert_eq!(choice.to_string(), name);
        }
        assert_eq!(
            "CUDA".parse::<DeviceChoice>().unwrap(),
            DeviceChoice::Cuda(0)
        );
        assert_eq!(
            "wgpu".parse::<DeviceChoice>().unwrap(),
            DeviceChoice::Wgpu(0)
        );
    }

    #[test]
    fn bad_names_say_what_is_expected() {
        for name in ["gpu", "vulkan", "cuda:x", "cpu:1", "auto:0", ""] {
            let err = name.parse::<DeviceChoice>().unwrap_err().to_string();
            assert!(
                err.contains("expected auto, cpu, cuda[:N]"),
                "{name}: {err}"
            );
        }
    }

    /// How many devices of a runtime this machine has, as the build sees them (none where the
    /// build lacks the runtime).
    fn device_count(runtime: &str) -> usize {
        match runtime {
            #[cfg(feature = "cuda")]
            "cuda" => cuda_devices().len(),
            #[cfg(feature = "wgpu")]
            "wgpu" => wgpu_devices().len(),
            _ => 0,
        }
    }

    /// A runtime the build lacks (`compiled` false) is refused by name; one it has resolves every device this machine
    /// has to that device (never to the CPU) and refuses the index past the last one, saying how
    /// many there are and, when there are none, what to install.
    fn check_runtime(
        runtime: &str,
        compiled: bool,
        choice: fn(usize) -> DeviceChoice,
        none_hint: &str,
    ) {
        assert_eq!(
            compiled_runtimes().contains(&runtime),
            compiled,
            "{runtime}: {:?}",
            compiled_runtimes()
        );
        if !compiled {
            let err = choice(0).resolve().unwrap_err().to_string();
            assert!(
                err.contains(&format!("built without the `{runtime}` feature")),
                "{err}"
            );
            return;
        }
        let count = device_count(runtime);
        for index in 0..count {
            let device = choice(index)
                .resolve()
                .unwrap_or_else(|err| panic!("{runtime}:{index} of {count}: {err}"));
            assert!(!is_cpu(&device), "{runtime}:{index} resolved to the CPU");
        }
        let err = choice(count).resolve().unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "--device {runtime}:{count}: this machine has {count} {runtime} device(s)"
            )),
            "{err}"
        );
        assert_eq!(err.contains(none_hint), count == 0, "{err}");
        assert!(!err.contains("built without"), "{err}");
    }

    #[test]
    fn each_runtime_resolves_its_devices_or_says_why_not() {
        let (cuda, wgpu) = (cfg!(feature = "cuda"), cfg!(feature = "wgpu"));
        check_runtime("cuda", cuda, DeviceChoice::Cuda, "no NVIDIA driver found");
        check_runtime("wgpu", wgpu, DeviceChoice::Wgpu, "Vulkan loader");
    }

    fn first_cuda() -> Option<Device> {
        #[cfg(feature = "cuda")]
        return cuda_devices().into_iter().next();
        #[cfg(not(feature = "cuda"))]
        None
    }

    /// The first wgpu device with a card behind it: Mesa's lavapipe, a software renderer, is
    /// passed over.
    fn first_wgpu_card() -> Option<Device> {
        #[cfg(feature = "wgpu")]
        return wgpu_devices().into_iter().find(|device| {
            device
                .identity()
                .is_some_and(|identity| identity.physical.is_some())
        });
        #[cfg(not(feature = "wgpu"))]
        None
    }

    #[test]
    fn auto_picks_cuda_then_a_wgpu_card_then_the_cpu() {
        let auto = DeviceChoice::Auto.resolve().unwrap();
        let expected = first_cuda()
            .or_else(first_wgpu_card)
            .unwrap_or_else(Device::flex);
        assert_eq!(
            auto,
            expected,
            "auto picked {}, expected {}",
            describe(&auto),
            describe(&expected)
        );
    }

    #[test]
    fn the_cpu_is_always_there() {
        assert!(is_cpu(&DeviceChoice::Cpu.resolve().unwrap()));
        assert!(is_cpu(&Device::flex().autodiff()));
        assert!(describe(&Device::flex()).starts_with("cpu ("));
    }
}
