//! The wasm builds' global allocator: power-of-two size classes over linear
//! memory; and their byte comparison (`memcmp`, see `bytes`).
//!
//! A render makes thousands of small, short-lived allocations (every key and
//! string of the request) and frees them all at the end. std's dlmalloc spent
//! about a sixth of a render in wasm on splitting, coalescing and binning that
//! this pattern never needs; here `alloc` pops a free list or bumps a pointer
//! (a kilobyte of blocks at once for the small classes), `dealloc` pushes onto a
//! free list, and a `realloc` within the same class moves nothing. The price is
//! up to 2x rounding and no reuse across classes, bounded by the peak of each
//! class. The module is single-threaded (no `atomics`).
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::ptr;

/// Blocks are at least 16 bytes (a free-list link plus alignment room).
const MIN_SHIFT: u32 = 4;
/// Classes 16 B .. 2 GiB: more than a 32-bit memory can hold.
const CLASSES: usize = 28;
/// Blocks are aligned to their size up to this; larger alignments are refused.
const MAX_ALIGN: usize = 4096;
const PAGE: usize = 65_536;
/// Memory grows by at least this many pages (1 MiB) at a time.
const MIN_GROW_PAGES: usize = 16;
/// Bytes of blocks a class takes from the region at once, when smaller.
const REFILL_BYTES: usize = 1024;

/// The allocator; one static instance serves the module.
pub(crate) struct SizeClasses(UnsafeCell<State>);

struct State {
    /// Head of each class's free list (0 when empty); a free block's first word links the next.
    free: [usize; CLASSES],
    /// The untouched rest of the region grown last.
    next: usize,
    end: usize,
}

// SAFETY: wasm32 without the `atomics` feature has a single thread.
unsafe impl Sync for SizeClasses {}

impl SizeClasses {
    pub(crate) const fn new() -> SizeClasses {
        SizeClasses(UnsafeCell::new(State {
            free: [0; CLASSES],
            next: 0,
            end: 0,
        }))
    }
}

/// The class of blocks that hold `layout`, if any.
#[inline]
fn class(layout: Layout) -> Option<usize> {
    if layout.align() > MAX_ALIGN {
        return None;
    }
    // The low bits set round every size up to the smallest class without a
    // comparison (a zero size wraps to the largest and is refused).
    let n = layout.size().max(layout.align());
    let c = (usize::BITS - (n.wrapping_sub(1) | ((1 << MIN_SHIFT) - 1)).leading_zeros() - MIN_SHIFT)
        as usize;
    (c < CLASSES).then_some(c)
}

impl State {
    /// A fresh block of class `c` from the end of the region, growing memory when needed.
    #[inline(never)]
    fn bump(&mut self, c: usize) -> *mut u8 {
        let size = 1usize << (c as u32 + MIN_SHIFT);
        let align = size.min(MAX_ALIGN);
        let fits = |next: usize, end: usize| {
            let start = next.checked_add(align - 1)? & !(align - 1);
            let stop = start.checked_add(size)?;
            (stop <= end).then_some((start, stop))
        };
        let (start, stop) = match fits(self.next, self.end) {
            Some(span) => span,
            None => {
                let pages = (size + align).div_ceil(PAGE).max(MIN_GROW_PAGES);
                let old = core::arch::wasm32::memory_grow(0, pages);
                if old == usize::MAX {
                    return ptr::null_mut();
                }
                let (Some(base), Some(end)) = (
                    old.checked_mul(PAGE),
                    old.checked_add(pages).and_then(|p| p.checked_mul(PAGE)),
                ) else {
                    return ptr::null_mut();
                };
                // Memory only ever grows here, so the new pages continue the region;
                // should anything else have grown it, start over at the new pages.
                if base != self.end {
                    self.next = base;
                }
                self.end = end;
                match fits(self.next, self.end) {
                    Some(span) => span,
                    None => return ptr::null_mut(),
                }
            }
        };
        self.next = stop;
        start as *mut u8
    }

    /// A block of class `c` when its free list is empty: a fresh one, and beside it
    /// more of the same class from the rest of the region (up to [`REFILL_BYTES`],
    /// without growing memory) onto the free list, so that the next allocations of
    /// a filling instance pop rather than come here.
    #[inline(never)]
    fn refill(&mut self, c: usize) -> *mut u8 {
        let first = self.bump(c);
        let size = 1usize << (c as u32 + MIN_SHIFT);
        if first.is_null() || size >= REFILL_BYTES {
            return first;
        }
        // `next` follows `first`, so it is aligned to `size` (below MAX_ALIGN).
        let mut head = self.free[c];
        for _ in 1..REFILL_BYTES / size {
            let Some(stop) = self.next.checked_add(size).filter(|&s| s <= self.end) else {
                break;
            };
            // SAFETY: the block is untouched region, at least a word long and aligned.
            unsafe { (self.next as *mut usize).write(head) };
            head = self.next;
            self.next = stop;
        }
        self.free[c] = head;
        first
    }
}

// SAFETY: blocks are handed out at most once until freed, are at least
// `layout.size()` bytes and aligned to `min(size, MAX_ALIGN) >= layout.align()`.
unsafe impl GlobalAlloc for SizeClasses {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: single-threaded, and no reference to the state outlives this call.
        let st = unsafe { &mut *self.0.get() };
        let Some(c) = class(layout) else {
            return ptr::null_mut();
        };
        let head = st.free[c];
        if head == 0 {
            return st.refill(c);
        }
        // SAFETY: `head` is a free block of this class; its first word links the next.
        st.free[c] = unsafe { (head as *const usize).read() };
        head as *mut u8
    }

    #[inline(never)]
    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: as in `alloc`.
        let st = unsafe { &mut *self.0.get() };
        if let Some(c) = class(layout) {
            // SAFETY: the caller returns a block of this layout, at least a word long.
            unsafe { block.cast::<usize>().write(st.free[c]) };
            st.free[c] = block as usize;
        }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size` forms a valid layout with this alignment.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if class(new).is_some() && class(new) == class(layout) {
            return block;
        }
        // SAFETY: `new` is a valid layout; the old block is live until copied and freed.
        unsafe {
            let moved = self.alloc(new);
            if !moved.is_null() {
                ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                self.dealloc(block, layout);
            }
            moved
        }
    }
}

/// Byte comparison for the module ([`crate::bytes::compare`]).
///
/// The builtin `memcmp` compares a byte per loop turn, and wasmtime's epoch
/// interruption adds a check to every turn; map lookups compare keys through it
/// on every patch. The result's sign is that of the first differing byte.
#[unsafe(no_mangle)]
#[inline(never)]
pub(crate) unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the caller guarantees `n` readable bytes behind both pointers.
    let (a, b) = unsafe {
        (
            std::slice::from_raw_parts(a, n),
            std::slice::from_raw_parts(b, n),
        )
    };
    crate::bytes::compare(a, b)
}

/// Equality-only comparison, which LLVM emits for `==` on byte slices.
#[unsafe(no_mangle)]
#[inline(never)]
pub(crate) unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the caller's guarantee is passed on.
    unsafe { memcmp(a, b, n) }
}
