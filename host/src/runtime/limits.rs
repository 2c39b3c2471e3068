//! Sandbox limits of one render: a memory cap (ResourceLimiter) and a wall-clock deadline (epochs).

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use wasmtime::{Engine, ResourceLimiter};

/// What a guest may use for one render.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Linear memory cap, in bytes.
    pub(crate) max_memory: usize,
    /// Wall-clock budget of the whole render (instantiation, copy-in, render, copy-out).
    pub(crate) timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_memory: 256 << 20,
            timeout: Duration::from_secs(2),
        }
    }
}

/// Caps linear memory and remembers whether the guest hit the cap, so that the trap the
/// guest raises afterwards (Rust aborts on allocation failure) is reported as what it is.
pub(crate) struct MemoryCap {
    max_memory: usize,
    pub(crate) exceeded: bool,
}

impl MemoryCap {
    pub(crate) fn new(max_memory: usize) -> Self {
        MemoryCap {
            max_memory,
            exceeded: false,
        }
    }
}

impl ResourceLimiter for MemoryCap {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max_memory {
            self.exceeded = true;
            return Ok(false);
        }
        Ok(maximum.is_none_or(|m| desired <= m))
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        // The engine's only table holds its indirect-call targets; it never grows at runtime.
        Ok(desired <= 100_000 && maximum.is_none_or(|m| desired <= m))
    }
}

/// Interrupts the guest (an epoch tick) when the timeout passes, unless dropped first.
pub(crate) struct Deadline {
    cancel: Option<mpsc::Sender<()>>,
}

impl Deadline {
    /// Arms a deadline; the store must use `set_epoch_deadline(1)` from the current epoch.
    pub(crate) fn arm(engine: &Engine, timeout: Duration) -> Self {
        let (cancel, cancelled) = mpsc::channel::<()>();
        let engine = engine.clone();
        thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = cancelled.recv_timeout(timeout) {
                engine.increment_epoch();
            }
        });
        Deadline {
            cancel: Some(cancel),
        }
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        // Disconnecting wakes the timer thread, which then exits without interrupting.
        self.cancel.take();
    }
}
