//! The wasmtime configuration every render runs under. build.rs includes this file, so that
//! the engine it precompiles matches the configuration that loads it; the wasm bench reaches it
//! through `unstable::engine_config`, so that it measures what the host runs.

use wasmtime::{Config, Enabled, InstanceAllocationStrategy, OptLevel, PoolingAllocationConfig};

/// Bytes of an instance's linear memory that stay mapped when its slot is freed. A medium
/// render touches about 2 MiB; a fresh instance in a reused slot then takes no page faults,
/// where a freshly mapped memory faults in every page it touches (about a third of a fresh
/// render's time, docs/benchmarks.md). Only pages the last instance dirtied are reset.
const KEEP_RESIDENT: usize = 8 << 20;

/// The engine configuration for at most `instances` live instances at a time: compiled for
/// speed, interruptible by epochs (the deadline), instances allocated from a pool of that
/// many slots so a new instance reuses a freed one's memory.
///
/// A slot's memory may grow to wasm32's 4 GiB, as without a pool: the render's memory cap is
/// the store's limiter (`limits::MemoryCap`), so that hitting it is reported as such.
pub(crate) fn config(instances: u32) -> Config {
    let mut pool = PoolingAllocationConfig::new();
    let instances = instances.max(1);
    pool.total_core_instances(instances)
        .total_memories(instances)
        .total_tables(instances)
        // The limiter's bound on the one table (`limits::MemoryCap::table_growing`).
        .table_elements(100_000)
        .linear_memory_keep_resident(KEEP_RESIDENT)
        .table_keep_resident(64 << 10)
        // Reset only the pages an instance dirtied (Linux 6.7 and later; else memset).
        .pagemap_scan(Enabled::Auto);
    let mut config = Config::new();
    config.cranelift_opt_level(OptLevel::Speed);
    config.epoch_interruption(true);
    config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    config
}
