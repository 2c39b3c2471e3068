//! The guest ABI protocol: alloc, write the request, render, read and free the response.

use wasmtime::{InstancePre, Memory, Store, TypedFunc};

use super::limits::MemoryCap;

/// A failed guest call, before classification.
pub(super) enum Failure {
    /// A trap or another wasmtime error.
    Wasm(wasmtime::Error),
    /// The module broke the ABI contract.
    Abi(String),
}

impl From<wasmtime::Error> for Failure {
    fn from(e: wasmtime::Error) -> Self {
        Failure::Wasm(e)
    }
}

/// The module's exports on one live instance.
pub(super) struct Exports {
    pub(super) memory: Memory,
    alloc: TypedFunc<i32, i32>,
    free: TypedFunc<(i32, i32), ()>,
    render: TypedFunc<(i32, i32), i64>,
    abi_version: TypedFunc<(), i32>,
}

pub(super) fn instantiate(
    pre: &InstancePre<MemoryCap>,
    store: &mut Store<MemoryCap>,
) -> Result<Exports, Failure> {
    let instance = pre.instantiate(&mut *store)?;
    let abi = |what: &str, e: wasmtime::Error| Failure::Abi(format!("export {what}: {e:#}"));
    let memory = instance
        .get_memory(&mut *store, "memory")
        .ok_or_else(|| Failure::Abi("no exported memory named `memory`".into()))?;
    Ok(Exports {
        memory,
        alloc: instance
            .get_typed_func(&mut *store, "xprender_alloc")
            .map_err(|e| abi("xprender_alloc(i32) -> i32", e))?,
        free: instance
            .get_typed_func(&mut *store, "xprender_free")
            .map_err(|e| abi("xprender_free(i32, i32)", e))?,
        render: instance
            .get_typed_func(&mut *store, "xprender_render")
            .map_err(|e| abi("xprender_render(i32, i32) -> i64", e))?,
        abi_version: instance
            .get_typed_func(&mut *store, "xprender_abi_version")
            .map_err(|e| abi("xprender_abi_version() -> i32", e))?,
    })
}

pub(super) fn abi_version(
    pre: &InstancePre<MemoryCap>,
    store: &mut Store<MemoryCap>,
) -> Result<i32, Failure> {
    let exports = instantiate(pre, store)?;
    Ok(exports.abi_version.call(&mut *store, ())?)
}

pub(super) fn render(
    pre: &InstancePre<MemoryCap>,
    store: &mut Store<MemoryCap>,
    request: &[u8],
) -> Result<Vec<u8>, Failure> {
    let x = instantiate(pre, store)?;
    call(&x, store, request)
}

/// One render on a live instance (fresh, or reused after a render that succeeded).
pub(super) fn call(
    x: &Exports,
    store: &mut Store<MemoryCap>,
    request: &[u8],
) -> Result<Vec<u8>, Failure> {
    let version = x.abi_version.call(&mut *store, ())?;
    if version != super::ABI_VERSION {
        return Err(Failure::Abi(format!(
            "it speaks ABI version {version}, this host speaks {}",
            super::ABI_VERSION
        )));
    }
    let len = i32::try_from(request.len()).map_err(|_| {
        Failure::Abi(format!(
            "a request of {} bytes exceeds 2 GiB",
            request.len()
        ))
    })?;
    let ptr = x.alloc.call(&mut *store, len)?;
    if ptr == 0 && len > 0 {
        return Err(Failure::Abi(
            "xprender_alloc returned a null pointer".into(),
        ));
    }
    x.memory
        .write(&mut *store, as_offset(ptr), request)
        .map_err(|_| Failure::Abi(format!("xprender_alloc returned {ptr:#x}, outside memory")))?;
    // The request buffer belongs to the guest from here on.
    let packed = x.render.call(&mut *store, (ptr, len))?;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let (resp_ptr, resp_len) = ((packed >> 32) as u32, packed as u32);
    // Bounds come from the guest: check them against its memory before copying anything.
    let (start, end) = (resp_ptr as usize, resp_ptr as usize + resp_len as usize);
    let response = x
        .memory
        .data(&*store)
        .get(start..end)
        .ok_or_else(|| {
            Failure::Abi(format!(
                "xprender_render returned a response ({resp_ptr:#x}, {resp_len} bytes) outside memory"
            ))
        })?
        .to_vec();
    #[allow(clippy::cast_possible_wrap)]
    x.free
        .call(&mut *store, (resp_ptr as i32, resp_len as i32))?;
    Ok(response)
}

#[allow(clippy::cast_sign_loss)]
fn as_offset(ptr: i32) -> usize {
    ptr as u32 as usize
}
