//! One render through the core module's C ABI, shared by the measuring examples.

use wasmtime::{Instance, Store};

/// Copies `request` in, renders, and frees the answer; an error document is an error.
pub(crate) fn render(
    store: &mut Store<()>,
    instance: &Instance,
    request: &[u8],
) -> Result<(), Box<dyn std::error::Error>> {
    let memory = instance
        .get_memory(&mut *store, "memory")
        .ok_or("no memory")?;
    let alloc = instance.get_typed_func::<i32, i32>(&mut *store, "xprender_alloc")?;
    let free = instance.get_typed_func::<(i32, i32), ()>(&mut *store, "xprender_free")?;
    let run = instance.get_typed_func::<(i32, i32), i64>(&mut *store, "xprender_render")?;
    let len = i32::try_from(request.len())?;
    let ptr = alloc.call(&mut *store, len)?;
    memory.write(&mut *store, usize::try_from(ptr)?, request)?;
    let packed = run.call(&mut *store, (ptr, len))?;
    let (rptr, rlen) = ((packed >> 32) as i32, (packed & 0xffff_ffff) as i32);
    let mut head = vec![0u8; usize::try_from(rlen)?.min(16)];
    memory.read(&*store, usize::try_from(rptr)?, &mut head)?;
    free.call(&mut *store, (rptr, rlen))?;
    if head.starts_with(b"{\"error\"") {
        return Err("the request does not render".into());
    }
    Ok(())
}
