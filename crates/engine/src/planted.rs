//! Bugs that unit tests plant on purpose, to show that the tests catch them: one set
//! of bits per thread, so a planted bug touches only the test that planted it. Each
//! module that can be broken this way names its bits.

use std::cell::Cell;

thread_local! {
    static BUGS: Cell<u32> = const { Cell::new(0) };
}

/// Whether `bug` is planted on this thread.
pub fn has(bug: u32) -> bool {
    BUGS.with(|b| b.get() & bug != 0)
}

/// Plants `bugs` on this thread (0: none).
pub fn plant(bugs: u32) {
    BUGS.with(|b| b.set(bugs));
}
