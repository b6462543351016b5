//! The `hwscope` command line; the code is the library's `cli` module.

fn main() -> std::process::ExitCode {
    hwscope::cli::main()
}

/// The native binary allocates with mimalloc (the library and every wasm build
/// keep the platform's allocator): the explorer's copy-on-write nodes make many
/// small, short-lived allocations, where glibc's `malloc` and `free` were ~19% of
/// its instructions (docs/explorer.md, "Issue 27"). Alignments up to 16 (every
/// allocation the engine makes) take mimalloc's plain calls, whose fast path is
/// shorter than its aligned ones.
#[cfg(not(target_arch = "wasm32"))]
mod alloc {
    use libmimalloc_sys::{mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc, mi_zalloc_aligned};
    use std::alloc::{GlobalAlloc, Layout};
    use std::ffi::c_void;

    /// What mimalloc's plain calls guarantee for a block of at least that size (a
    /// smaller block, its size class's alignment: so as std's `System`, only an
    /// alignment no larger than the size takes them).
    const PLAIN_ALIGN: usize = 16;

    #[inline(always)]
    fn plain(layout: &Layout) -> bool {
        layout.align() <= PLAIN_ALIGN && layout.align() <= layout.size()
    }

    struct MiMalloc;

    // SAFETY: each call forwards to mimalloc with the layout's size, and its
    // alignment where the plain calls do not already guarantee it.
    unsafe impl GlobalAlloc for MiMalloc {
        #[inline]
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            if plain(&layout) {
                mi_malloc(layout.size()) as *mut u8
            } else {
                mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }

        #[inline]
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            if plain(&layout) {
                mi_zalloc(layout.size()) as *mut u8
            } else {
                mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }

        #[inline]
        unsafe fn dealloc(&self, ptr: *mut u8, _: Layout) {
            mi_free(ptr as *mut c_void)
        }

        #[inline]
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            if plain(&layout) {
                mi_realloc(ptr as *mut c_void, new_size) as *mut u8
            } else {
                mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
            }
        }
    }

    #[global_allocator]
    static ALLOC: MiMalloc = MiMalloc;
}
