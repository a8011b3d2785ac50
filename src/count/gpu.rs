//! Counting on an NVIDIA GPU (`count --gpu`, cargo feature `gpu`): the CUDA device of
//! [`super::share`], which shares a count's items between it and CPU threads. Its kernel,
//! `batch.cu`, is compiled at run time by NVRTC for the GPU found and the count's settings.
//! The CUDA driver and NVRTC are loaded at run time (cudarc's dynamic loading), so a build
//! with the feature starts where neither is installed, and [`Gpu::open`] says which is
//! missing.
//!
//! Why cudarc and NVRTC rather than wgpu: the kernel is plain CUDA C with 64-bit counters
//! and `__popc`, which WGSL lacks (no 64-bit integers), and the same text builds for the
//! host, so the tests run its exact code path on any CPU (`batch::tests`).

use super::batch::NodeBatch;
use super::share::{Device, Settings};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, sys,
};
use std::sync::Arc;

/// The kernel's text.
const SOURCE: &str = include_str!("batch.cu");

/// The CPUs this thread may run on, where the system says (Linux).
#[cfg(target_os = "linux")]
type Cpus = libc::cpu_set_t;
#[cfg(not(target_os = "linux"))]
type Cpus = ();

fn cpus() -> Option<Cpus> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a zeroed cpu_set_t is a valid empty set, of the size passed.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: `set` is writable and `size` bytes long.
        (unsafe { libc::sched_getaffinity(0, size, &mut set) } == 0).then_some(set)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

fn how_many(cpus: &Cpus) -> usize {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: reads the set only.
        (unsafe { libc::CPU_COUNT(cpus) }) as usize
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpus;
        0
    }
}

/// A GPU with the counting kernel loaded.
pub struct Gpu {
    streams: [Arc<CudaStream>; 2],
    kernel: CudaFunction,
    name: String,
    settings: Settings,
    /// Blocks that run at once on the whole GPU: the grid of a launch.
    resident_blocks: u32,
    /// The CPUs the opening thread could use before the CUDA driver was loaded, given back
    /// to the CPU threads that count beside the GPU. (On the H100 machine those threads
    /// counted a third as fast as alone, in the GPU's process only; a driver that narrows
    /// the opening thread's affinity, which threads started later inherit, would do that.)
    cpus: Option<Cpus>,
    /// CPUs the opening thread could use before and after, when they differ.
    narrowed: Option<(usize, usize)>,
}

/// Runs `f`, turning a panic into its message, silently: cudarc panics when a library it
/// loaded lacks a function it calls (a `libcuda.so` or `libnvrtc.so` that is not one, or
/// too old), and that must be a reason to count on the CPU, not a crash. The process's
/// panic hook is set aside meanwhile (a CPU thread counting beside the GPU does not panic:
/// the engine's search has no failure path).
fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    result.map_err(|p| {
        let why = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("the CUDA library found is not one this build can use ({why})")
    })
}

/// Driver functions that cudarc's objects call when dropped. cudarc panics on a function the
/// library lacks, and a panic while another unwinds aborts the process (a library without
/// `cuCtxSetFlags` made opening panic, then releasing the context panicked again: exit 134
/// instead of counting on the CPU), so a library without one of these is refused first.
const CALLED_ON_DROP: [&str; 12] = [
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuDevicePrimaryCtxRelease_v2",
    "cuStreamDestroy_v2",
    "cuStreamWaitEvent",
    "cuStreamSynchronize",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventDestroy_v2",
    "cuMemFreeAsync",
    "cuMemFree_v2",
    "cuModuleUnload",
];

/// Whether the CUDA driver library cudarc loaded has function `name`.
fn driver_has(name: &str) -> bool {
    let symbol = format!("{name}\0");
    // SAFETY: the library is one `is_culib_present` found loadable; the symbol is only
    // looked up, never called.
    unsafe {
        sys::culib()
            .get::<unsafe extern "C" fn()>(symbol.as_bytes())
            .is_ok()
    }
}

/// A driver error as one line: the code's name (`CUDA_ERROR_INVALID_DEVICE`).
fn driver(e: cudarc::driver::DriverError) -> String {
    format!("{:?}", e.0)
}

/// NVRTC's name of the virtual architecture of a device of compute capability
/// `major.minor`, for the ones this build knows (others get NVRTC's default, which the
/// driver compiles further).
fn architecture(major: i32, minor: i32) -> Option<&'static str> {
    Some(match (major, minor) {
        (7, 0) => "compute_70",
        (7, 5) => "compute_75",
        (8, 0) => "compute_80",
        (8, 6) => "compute_86",
        (8, 9) => "compute_89",
        (9, 0) => "compute_90",
        _ => return None,
    })
}

/// A batch under way on one of the GPU's streams.
pub struct Pending {
    stream: usize,
    nodes: usize,
    out: CudaSlice<u64>,
    // Kept until the stream has run the kernel that reads them.
    _inputs: [CudaSlice<u32>; 4],
}

impl Gpu {
    /// The first GPU, with the kernel compiled for boards of `n` as `settings` asks; else
    /// why there is none (no driver library, no NVRTC library, libraries that are not
    /// usable, no device, or the kernel did not build), in one line.
    pub fn open(n: u32, settings: Settings) -> Result<Gpu, String> {
        quietly(|| Self::open_checked(n, settings))?
    }

    fn open_checked(n: u32, settings: Settings) -> Result<Gpu, String> {
        let before = cpus();
        // SAFETY: these only try to load the libraries.
        if !unsafe { sys::is_culib_present() } {
            return Err("no CUDA driver library (libcuda.so) could be loaded".into());
        }
        if let Some(name) = CALLED_ON_DROP.iter().find(|name| !driver_has(name)) {
            return Err(format!(
                "the CUDA driver library lacks {name} (a driver older than CUDA 11.2, or not one)"
            ));
        }
        // SAFETY: as above, a load attempt only.
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            return Err("no NVRTC library (libnvrtc.so) found".into());
        }
        let ctx = CudaContext::new(0).map_err(|e| format!("no GPU: {}", driver(e)))?;
        let name = ctx.name().unwrap_or_else(|_| "GPU 0".into());
        // The feeding thread sleeps while it waits for the GPU, leaving its core to the
        // CPU threads that count beside it.
        // (A setting, not a need: drivers before CUDA 12.1 lack the call.)
        if driver_has("cuCtxSetFlags") {
            let _ = ctx.set_flags(sys::CUctx_flags::CU_CTX_SCHED_BLOCKING_SYNC);
        }
        let arch = ctx
            .compute_capability()
            .ok()
            .and_then(|(major, minor)| architecture(major, minor));
        let mut options = vec![
            format!("-DSTACK_DEPTH={}", settings.stack_depth(n)),
            format!("-DBLOCK={}", settings.block),
        ];
        if settings.shared {
            options.push("-DSTACK_SHARED".into());
        }
        let opts = cudarc::nvrtc::CompileOptions {
            options,
            arch,
            ..Default::default()
        };
        let ptx = cudarc::nvrtc::compile_ptx_with_opts(SOURCE, opts).map_err(|e| {
            format!(
                "the kernel does not build for {name}: {}",
                e.to_string().lines().next().unwrap_or_default()
            )
        })?;
        let module = ctx
            .load_module(ptx)
            .map_err(|e| format!("{name}: cannot load the kernel: {}", driver(e)))?;
        let kernel = module
            .load_function("count_nodes")
            .map_err(|e| format!("{name}: no kernel count_nodes: {}", driver(e)))?;
        let sms = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(|e| format!("{name}: {}", driver(e)))?
            .max(1) as u32;
        let per_sm = kernel
            .occupancy_max_active_blocks_per_multiprocessor(settings.block, 0, None)
            .unwrap_or(2048 / settings.block)
            .max(1);
        let fail = |e| format!("{name}: {}", driver(e));
        let streams = [
            ctx.new_stream().map_err(fail)?,
            ctx.new_stream().map_err(fail)?,
        ];
        let narrowed = match (&before, cpus()) {
            (Some(b), Some(a)) if how_many(b) != how_many(&a) => Some((how_many(b), how_many(&a))),
            _ => None,
        };
        Ok(Gpu {
            streams,
            kernel,
            name,
            settings,
            resident_blocks: sms * per_sm,
            cpus: before,
            narrowed,
        })
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The settings it counts with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// When opening the GPU changed the CPUs this thread may run on: how many it could
    /// use before and after (the CPU threads beside the GPU get the former back).
    pub fn narrowed(&self) -> Option<(usize, usize)> {
        self.narrowed
    }
}

impl Gpu {
    /// Counts `count`'s items that `hooks` leaves on this GPU and the CPU threads the
    /// settings name ([`super::share::count`]); a panic of the CUDA library is an error.
    pub fn count(
        &self,
        count: &super::resumable::ItemCount,
        hooks: &super::resumable::Hooks,
    ) -> Result<Option<super::share::Shared>, String> {
        quietly(|| super::share::count(self, &self.settings, count, hooks))?
    }
}

impl Device for Gpu {
    type Pending = Pending;

    fn launch(&self, queue: usize, batch: &NodeBatch) -> Result<Pending, String> {
        let s = &self.streams[queue];
        let fail = |e: cudarc::driver::DriverError| format!("{}: {}", self.name, driver(e));
        let count = batch.nodes.len();
        let tables = s.clone_htod(&batch.tables).map_err(fail)?;
        let nodes = s.clone_htod(batch.nodes.as_flattened()).map_err(fail)?;
        let owners = s.clone_htod(&batch.owners).map_err(fail)?;
        let next = s.alloc_zeros::<u32>(1).map_err(fail)?;
        let mut out = s.alloc_zeros::<u64>(count.max(1)).map_err(fail)?;
        if count > 0 {
            let n = u32::try_from(count).map_err(|_| "a batch of more than 2^32 nodes")?;
            let config = LaunchConfig {
                grid_dim: (
                    n.div_ceil(self.settings.block).min(self.resident_blocks),
                    1,
                    1,
                ),
                block_dim: (self.settings.block, 1, 1),
                shared_mem_bytes: 0,
            };
            let mut launch = s.launch_builder(&self.kernel);
            launch.arg(&tables);
            launch.arg(&nodes);
            launch.arg(&owners);
            launch.arg(&mut out);
            launch.arg(&n);
            launch.arg(&next);
            // SAFETY: the arguments are those of `count_nodes` in batch.cu, in order and of
            // its types; `owners` index items of `tables` (`NodeBatch::push` makes them so),
            // `out` has a word per node, and `next` starts at 0.
            unsafe { launch.launch(config) }.map_err(fail)?;
        }
        Ok(Pending {
            stream: queue,
            nodes: count,
            out,
            _inputs: [tables, nodes, owners, next],
        })
    }

    fn wait(&self, p: Pending) -> Result<Vec<u64>, String> {
        let fail = |e: cudarc::driver::DriverError| format!("{}: {}", self.name, driver(e));
        let mut counts = self.streams[p.stream].clone_dtoh(&p.out).map_err(fail)?;
        counts.truncate(p.nodes);
        Ok(counts)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn prepare_cpu_thread(&self) {
        #[cfg(target_os = "linux")]
        if let Some(set) = &self.cpus {
            // SAFETY: `set` is a valid cpu_set_t of the size passed; failing leaves the
            // thread as it was.
            unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a fake CUDA driver library defines: enough to create a context, reporting one
    /// device named "Fake GPU".
    const FAKE_DRIVER: &str = r#"
static void *current = 0;
int cuInit(unsigned flags) { return 0; }
int cuDriverGetVersion(int *v) { *v = 12000; return 0; }
int cuDeviceGet(int *d, int ordinal) { *d = 0; return 0; }
int cuDeviceGetCount(int *c) { *c = 1; return 0; }
int cuDevicePrimaryCtxRetain(void **c, int d) { *c = (void *)0x1000; return 0; }
int cuDeviceGetAttribute(int *v, int attribute, int d) { *v = 8; return 0; }
int cuCtxGetCurrent(void **c) { *c = current; return 0; }
int cuCtxSetCurrent(void *c) { current = c; return 0; }
int cuDeviceGetName(char *b, int l, int d) { const char *s = "Fake GPU"; int i = 0;
    for (; s[i] && i < l - 1; i++) b[i] = s[i]; b[i] = 0; return 0; }
int cuGetErrorName(int e, const char **s) { *s = "CUDA_ERROR_FAKE"; return 0; }
int cuGetErrorString(int e, const char **s) { *s = "fake"; return 0; }
"#;

    /// The functions cudarc calls on drops, for a fake library that has them all.
    const FAKE_DROPS: &str = r#"
int cuDevicePrimaryCtxRelease_v2(int d) { return 0; }
int cuStreamDestroy_v2(void *s) { return 0; }
int cuStreamWaitEvent(void *s, void *e, unsigned f) { return 0; }
int cuStreamSynchronize(void *s) { return 0; }
int cuEventRecord(void *e, void *s) { return 0; }
int cuEventSynchronize(void *e) { return 0; }
int cuEventDestroy_v2(void *e) { return 0; }
int cuMemFreeAsync(unsigned long long p, void *s) { return 0; }
int cuMemFree_v2(unsigned long long p) { return 0; }
int cuModuleUnload(void *m) { return 0; }
"#;

    /// `source` built as `lib{name}.so` (and `.so.1`) in `dir` by the C compiler.
    fn library(dir: &std::path::Path, name: &str, source: &str) {
        let c = dir.join(format!("{name}.c"));
        std::fs::write(&c, source).unwrap();
        let so = dir.join(format!("lib{name}.so"));
        let built = std::process::Command::new("cc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(&so)
            .arg(&c)
            .output()
            .expect("a C compiler (cc) on PATH");
        assert!(
            built.status.success(),
            "{}",
            String::from_utf8_lossy(&built.stderr)
        );
        std::fs::copy(&so, dir.join(format!("lib{name}.so.1"))).unwrap();
    }

    /// Opening the GPU in a child process of this test binary whose loader finds only the
    /// libraries of `dir` (the loader reads LD_LIBRARY_PATH at start): its error, or a
    /// failure of the test when the child did not end normally.
    fn open_in_child(dir: &std::path::Path, test: &str) -> String {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .env("LD_LIBRARY_PATH", dir)
            .env("NQUEENS_FAKE_CUDA_CHILD", "1")
            .args(["--exact", test, "--nocapture", "--test-threads=1"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "the child ended with {:?}: {stdout}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
            .lines()
            .find_map(|l| l.split_once("opening: ").map(|(_, why)| why))
            .unwrap_or_else(|| panic!("no answer from the child: {stdout}"))
            .to_string()
    }

    /// Why opening the GPU fails with a fake driver of `driver`'s source and an NVRTC with
    /// nothing but its version, in a child running `test`.
    fn open_with(driver: &str, test: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        library(dir.path(), "cuda", driver);
        library(
            dir.path(),
            "nvrtc",
            "int nvrtcVersion(int *a, int *b) { *a = 12; *b = 0; return 0; }\n",
        );
        open_in_child(dir.path(), test)
    }

    /// In the child: opens the GPU and prints why it could not.
    fn child() -> bool {
        if std::env::var_os("NQUEENS_FAKE_CUDA_CHILD").is_none() {
            return false;
        }
        let settings = Settings::for_board(12).unwrap();
        match Gpu::open(12, settings) {
            Ok(g) => println!("opening: opened {}", g.name()),
            Err(why) => println!("opening: {why}"),
        }
        true
    }

    /// A driver library without a function cudarc calls when it drops a context: opening
    /// panicked on the first missing function, then again while dropping the context, and
    /// the process aborted (exit 134) instead of counting on the CPU. Now it is refused
    /// before anything is made.
    #[test]
    fn a_driver_without_what_drops_call_is_refused() {
        if child() {
            return;
        }
        let why = open_with(
            FAKE_DRIVER,
            "count::gpu::tests::a_driver_without_what_drops_call_is_refused",
        );
        assert!(why.contains("lacks cuDevicePrimaryCtxRelease_v2"), "{why}");
    }

    /// A driver before CUDA 12.1 (no cuCtxSetFlags, an optional setting here) is used; a
    /// library that fails later (an NVRTC without its functions) is a reason given, with
    /// the context dropped cleanly.
    #[test]
    fn a_driver_without_optional_functions_is_used_and_a_later_failure_is_an_error() {
        if child() {
            return;
        }
        let why = open_with(
            &format!("{FAKE_DRIVER}{FAKE_DROPS}"),
            "count::gpu::tests::a_driver_without_optional_functions_is_used_and_a_later_failure_is_an_error",
        );
        assert!(
            why.contains("not one this build can use") && why.contains("nvrtc"),
            "{why}"
        );
    }
}
