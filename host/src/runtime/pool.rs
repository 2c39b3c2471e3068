//! Live engine instances for a long-running server: compiled once, reused across renders.
//!
//! A render on a live instance skips instantiation (tens of microseconds); the engine is
//! pure, so an instance answers the same after any number of renders (host/tests/module.rs).
//! An instance whose render failed (out of memory, out of time, a trap) is dropped, and one
//! that grew past `KEEP_MEMORY` is not kept, so an idle server holds little memory.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use wasmtime::{Engine, Store};

use super::limits::{Limits, MemoryCap};
use super::{GuestError, Runtime, classify, guest};

/// One epoch tick: the granularity of the time limit.
const TICK: Duration = Duration::from_millis(10);

/// Instances whose linear memory grew past this are dropped after their render.
const KEEP_MEMORY: usize = 32 << 20;

struct Live {
    store: Store<MemoryCap>,
    exports: guest::Exports,
}

/// A pool of instances of one compiled engine, shared by the server's threads.
pub(crate) struct Pool {
    runtime: Runtime,
    limits: Limits,
    idle: Mutex<Vec<Live>>,
    max_idle: usize,
    _ticker: Ticker,
}

impl Pool {
    /// A pool over `runtime`, which it owns: its engine's epoch now ticks every 10 ms.
    pub(crate) fn new(runtime: Runtime, limits: Limits, max_idle: usize) -> Pool {
        let ticker = Ticker::start(runtime.engine.clone());
        Pool {
            runtime,
            limits,
            idle: Mutex::new(Vec::new()),
            max_idle,
            _ticker: ticker,
        }
    }

    /// Runs one render on an idle instance, or a fresh one when none is idle.
    ///
    /// # Errors
    /// As for [`Runtime::render`].
    pub(crate) fn render(&self, request: &[u8]) -> Result<Vec<u8>, GuestError> {
        let idle = self.idle.lock().map(|mut v| v.pop()).unwrap_or(None);
        let mut live = match idle {
            Some(live) => live,
            None => self.fresh()?,
        };
        live.store.data_mut().exceeded = false;
        // The deadline counts whole ticks from now, plus one for the tick under way.
        let ticks = u64::try_from(self.limits.timeout.as_millis() / TICK.as_millis())
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        live.store.set_epoch_deadline(ticks);
        let result = guest::call(&live.exports, &mut live.store, request);
        match result {
            Ok(out) => {
                let size = live.exports.memory.data_size(&live.store);
                if size <= KEEP_MEMORY
                    && let Ok(mut idle) = self.idle.lock()
                    && idle.len() < self.max_idle
                {
                    idle.push(live);
                }
                Ok(out)
            }
            Err(e) => Err(classify(e, live.store.data(), self.limits)),
        }
    }

    fn fresh(&self) -> Result<Live, GuestError> {
        let mut store = Store::new(&self.runtime.engine, MemoryCap::new(self.limits.max_memory));
        store.limiter(|cap| cap);
        match guest::instantiate(&self.runtime.pre, &mut store) {
            Ok(exports) => Ok(Live { store, exports }),
            Err(e) => Err(classify(e, store.data(), self.limits)),
        }
    }
}

/// Advances the engine's epoch every tick, so each store's deadline is a tick count.
struct Ticker {
    stop: Arc<AtomicBool>,
}

impl Ticker {
    fn start(engine: Engine) -> Ticker {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                thread::sleep(TICK);
                engine.increment_epoch();
            }
        });
        Ticker { stop }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
