//! The plain C ABI of the core module: no imports, JSON in, JSON out.
//!
//! Every buffer that crosses the boundary is a boxed byte slice; the host gets
//! buffers from `xprender_alloc` and returns them with `xprender_free`.
#![allow(unsafe_code)]
// The exports are reached through the module's export table, not Rust paths.
#![allow(unreachable_pub)]

use std::cell::RefCell;

use crate::Engine;

// The module's one engine, kept across calls: the host holds the instance, and
// the instance holds the engine. A module runs on one thread.
thread_local! {
    static ENGINE: RefCell<Engine> = const { RefCell::new(Engine::new()) };
}

/// The ABI version; bumped on any incompatible change of the exports below.
const ABI_VERSION: i32 = 1;

/// Returns a fresh buffer of `len` bytes for the host to write a request into.
/// A negative length yields a null pointer.
#[unsafe(no_mangle)]
pub extern "C" fn xprender_alloc(len: i32) -> i32 {
    let Ok(len) = usize::try_from(len) else {
        return 0;
    };
    into_raw(vec![0u8; len].into_boxed_slice())
}

/// Releases a buffer obtained from `xprender_alloc` or `xprender_render`.
///
/// # Safety
/// `ptr` and `len` must describe a buffer this module handed out and that was
/// not freed yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xprender_free(ptr: i32, len: i32) {
    // SAFETY: the caller returns a buffer we boxed with exactly this length.
    unsafe { drop(from_raw(ptr, len)) }
}

/// Renders the request in `ptr[..len]` (consuming that buffer) and returns
/// `(response_ptr << 32) | response_len` of the response JSON.
///
/// # Safety
/// `ptr` and `len` must describe a buffer obtained from `xprender_alloc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xprender_render(ptr: i32, len: i32) -> i64 {
    // SAFETY: the caller hands over a buffer from `xprender_alloc`.
    let request = unsafe { from_raw(ptr, len) };
    let response = ENGINE.with(|e| e.borrow_mut().render_bytes(&request));
    drop(request);
    let bytes = response.into_bytes().into_boxed_slice();
    let len = bytes.len();
    let ptr = into_raw(bytes);
    #[allow(clippy::cast_sign_loss)]
    let hi = i64::from(ptr as u32) << 32;
    hi | i64::try_from(len).unwrap_or(0)
}

/// The ABI version this module speaks.
#[unsafe(no_mangle)]
pub extern "C" fn xprender_abi_version() -> i32 {
    ABI_VERSION
}

fn into_raw(bytes: Box<[u8]>) -> i32 {
    #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
    let ptr = Box::into_raw(bytes).cast::<u8>() as usize as i32;
    ptr
}

/// # Safety
/// `ptr`/`len` must come from `into_raw` of a boxed slice of exactly `len` bytes.
unsafe fn from_raw(ptr: i32, len: i32) -> Box<[u8]> {
    #[allow(clippy::cast_sign_loss)]
    let (ptr, len) = (ptr as u32 as usize as *mut u8, len as u32 as usize);
    // SAFETY: upheld by the caller.
    unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) }
}
