//! The instruction sets the engines' inner loops are compiled for, and the one place where
//! one is chosen: the CPU is asked once which sets it has, and `NQUEENS_KERNEL`
//! (`portable`, `avx2`, `avx512`) forces one for tests and benchmarks. The counting engines
//! ([`crate::count`]) compile their kernels for each; the exact search scans its levels with
//! AVX-512 or AVX2, whichever is the kernel chosen, and row by row on the portable one.

use std::sync::OnceLock;

/// A set of instructions the engines' inner loops are compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// The target's baseline: runs on every CPU.
    Portable,
    /// x86-64 with AVX2, BMI1/2 and POPCNT (Haswell, Zen and later).
    Avx2,
    /// x86-64 with AVX-512F, BW, VL and VPOPCNTDQ (Ice Lake, Zen 4 and later).
    Avx512,
}

/// The environment variable that forces a kernel.
pub(crate) const KERNEL_VAR: &str = "NQUEENS_KERNEL";

/// Why the kernel named in the environment variable `NQUEENS_KERNEL` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    /// No kernel has this name.
    #[error("NQUEENS_KERNEL={0}: unknown kernel (portable, avx2 or avx512)")]
    Unknown(String),
    /// This CPU lacks the instructions the kernel needs.
    #[error("NQUEENS_KERNEL={0}: this CPU cannot run it")]
    Unsupported(String),
}

impl Kernel {
    /// Every kernel, fastest first.
    pub const ALL: [Kernel; 3] = [Kernel::Avx512, Kernel::Avx2, Kernel::Portable];

    /// The kernel's name, as `NQUEENS_KERNEL` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// Whether this CPU can run the kernel.
    pub fn supported(self) -> bool {
        match self {
            Kernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("bmi1")
                    && std::arch::is_x86_feature_detected!("bmi2")
                    && std::arch::is_x86_feature_detected!("popcnt")
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
                    && std::arch::is_x86_feature_detected!("popcnt")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The kernels this CPU runs, fastest first.
    pub fn available() -> Vec<Kernel> {
        Kernel::ALL.into_iter().filter(|k| k.supported()).collect()
    }

    /// The kernel to use: the one `NQUEENS_KERNEL` names, or the fastest this CPU runs.
    /// Errs when the variable names an unknown kernel or one this CPU lacks.
    pub fn selected() -> Result<Kernel, KernelError> {
        static CHOSEN: OnceLock<Result<Kernel, KernelError>> = OnceLock::new();
        CHOSEN
            .get_or_init(|| match std::env::var_os(KERNEL_VAR) {
                None => Ok(Kernel::available()[0]),
                // A value that is not text names no kernel either (never silently the
                // fastest).
                Some(name) => match Kernel::ALL.into_iter().find(|k| name == k.name()) {
                    None => Err(KernelError::Unknown(name.to_string_lossy().into())),
                    Some(k) if !k.supported() => Err(KernelError::Unsupported(k.name().into())),
                    Some(k) => Ok(k),
                },
            })
            .clone()
    }

    /// The selected kernel, or the fastest available when `NQUEENS_KERNEL` is invalid
    /// (the command line reports that before any count starts).
    pub fn best() -> Kernel {
        Kernel::selected().unwrap_or_else(|_| Kernel::available()[0])
    }
}
