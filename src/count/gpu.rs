//! Counting on an NVIDIA GPU (`count --gpu`, cargo feature `gpu`): the constellation
//! engine's items as node batches ([`super::batch`]), each node searched by one thread of
//! the CUDA kernel `batch.cu`, compiled at run time by NVRTC for the GPU found. The CUDA
//! driver and NVRTC are loaded at run time (cudarc's dynamic loading), so a build with the
//! feature starts where neither is installed, and [`Gpu::open`] says which is missing.
//!
//! Why cudarc and NVRTC rather than wgpu: the kernel is plain CUDA C with 64-bit counters
//! and `__popc`, which WGSL lacks (no 64-bit integers), and the same text builds for the
//! host, so the tests run its exact code path on any CPU (`batch::tests`).

use super::batch::NodeBatch;
use super::resumable::{Hooks, ItemCount};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, LaunchConfig, PushKernelArg};
use std::sync::Arc;

/// The kernel's text.
const SOURCE: &str = include_str!("batch.cu");

/// Nodes sent to the GPU at once: 64 MiB of nodes and 32 MiB of counts.
pub const NODES_PER_LAUNCH: usize = 1 << 22;

/// Nodes of each launch also counted on the CPU and compared.
const SPOT_CHECKS: usize = 16;

/// Free rows each GPU thread searches below its node. Not tuned: no GPU was at hand to
/// measure it (the CPU's frontier engine takes 8).
pub const ROWS_PER_THREAD: usize = 9;

/// A GPU with the counting kernel loaded.
pub struct Gpu {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    name: String,
}

/// Runs `f`, turning a panic into its message, silently: cudarc panics when a library it
/// loaded lacks a function it calls (a `libcuda.so` or `libnvrtc.so` that is not one, or
/// too old), and that must be a reason to count on the CPU, not a crash. The process's
/// panic hook is set aside meanwhile (no other thread counts while the GPU is used).
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

/// A driver error as one line: the code's name (`CUDA_ERROR_INVALID_DEVICE`).
fn driver(e: cudarc::driver::DriverError) -> String {
    format!("{:?}", e.0)
}

impl Gpu {
    /// The first GPU, with the kernel compiled for it; else why there is none (no driver
    /// library, no NVRTC library, libraries that are not usable, no device, or the kernel
    /// did not build), in one line.
    pub fn open() -> Result<Gpu, String> {
        quietly(Self::open_checked)?
    }

    fn open_checked() -> Result<Gpu, String> {
        // SAFETY: these only try to load the libraries.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err("no CUDA driver library (libcuda.so) found".into());
        }
        // SAFETY: as above, a load attempt only.
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            return Err("no NVRTC library (libnvrtc.so) found".into());
        }
        let ctx = CudaContext::new(0).map_err(|e| format!("no GPU: {}", driver(e)))?;
        let name = ctx.name().unwrap_or_else(|_| "GPU 0".into());
        let ptx = cudarc::nvrtc::compile_ptx(SOURCE).map_err(|e| {
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
        Ok(Gpu {
            stream: ctx.default_stream(),
            kernel,
            name,
        })
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Each node's placements (unweighted), as [`NodeBatch::node_counts`] gives them; a
    /// few nodes of each launch are counted on the CPU too, and a GPU that disagrees is an
    /// error (the path has no other check where no total is published).
    pub fn node_counts(&self, batch: &NodeBatch) -> Result<Vec<u64>, String> {
        let counts = quietly(|| self.launch(batch))??;
        let step = (batch.nodes.len() / SPOT_CHECKS).max(1);
        for i in (0..batch.nodes.len()).step_by(step).take(SPOT_CHECKS + 1) {
            let at = batch.owners[i] as usize * super::batch::TABLE_WORDS;
            let cpu = super::batch::count_node(
                &batch.tables[at..at + super::batch::TABLE_WORDS],
                batch.nodes[i],
            );
            if counts[i] != cpu {
                return Err(format!(
                    "{}: node {i} of a batch counted {} on the GPU and {cpu} on the CPU",
                    self.name, counts[i]
                ));
            }
        }
        Ok(counts)
    }

    fn launch(&self, batch: &NodeBatch) -> Result<Vec<u64>, String> {
        let fail = |e: cudarc::driver::DriverError| format!("{}: {}", self.name, driver(e));
        let mut counts = Vec::with_capacity(batch.nodes.len());
        if batch.nodes.is_empty() {
            return Ok(counts);
        }
        let s = &self.stream;
        let tables = s.clone_htod(&batch.tables).map_err(fail)?;
        for (chunk, owners) in batch
            .nodes
            .chunks(NODES_PER_LAUNCH)
            .zip(batch.owners.chunks(NODES_PER_LAUNCH))
        {
            let flat: Vec<u32> = chunk.iter().flatten().copied().collect();
            let nodes = s.clone_htod(&flat).map_err(fail)?;
            let owners = s.clone_htod(owners).map_err(fail)?;
            let mut out = s.alloc_zeros::<u64>(chunk.len()).map_err(fail)?;
            let n = chunk.len() as u32;
            let mut launch = s.launch_builder(&self.kernel);
            launch.arg(&tables);
            launch.arg(&nodes);
            launch.arg(&owners);
            launch.arg(&mut out);
            launch.arg(&n);
            // SAFETY: the arguments are those of `count_nodes` in batch.cu, in order and of
            // its types; `owners` index items of `tables`, checked by `NodeBatch::push`.
            unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }.map_err(fail)?;
            counts.extend(s.clone_dtoh(&out).map_err(fail)?);
        }
        Ok(counts)
    }

    /// Counts `count`'s items that `hooks` leaves, in batches of about
    /// [`NODES_PER_LAUNCH`] nodes, reporting each item's value as the CPU engine does
    /// (so that checkpoints and progress work alike); `Ok(None)` when `hooks.stop` stopped
    /// it between batches. The half-board engine's items are refused: its kernel is not
    /// written.
    pub fn count(&self, count: &ItemCount, hooks: &Hooks) -> Result<Option<u64>, String> {
        let todo = count.todo(hooks.skip);
        let (mut sum, mut at) = (0u64, 0usize);
        while at < todo.len() {
            if hooks.stop.now() {
                return Ok(None);
            }
            let start = at;
            let mut batch = NodeBatch::default();
            while at < todo.len() && batch.nodes.len() < NODES_PER_LAUNCH {
                if !count.push_nodes(&mut batch, todo[at], ROWS_PER_THREAD) {
                    return Err("the GPU counts the constellation engine's items only".into());
                }
                at += 1;
            }
            let counts = self.node_counts(&batch)?;
            let mut per_item = vec![0u64; at - start];
            for (c, &o) in counts.iter().zip(&batch.owners) {
                per_item[o as usize] += c * batch.weights[o as usize];
            }
            for (k, &value) in per_item.iter().enumerate() {
                (hooks.counted)(todo[start + k], value);
                sum += value;
            }
        }
        Ok(Some(sum))
    }
}
