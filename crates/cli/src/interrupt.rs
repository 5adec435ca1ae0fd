//! Ctrl-C: the first press asks the running search to stop and report what it covered
//! (every concrete run looks at the flag, so even a spinning run ends within
//! milliseconds); a second press quits at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

static RAISED: AtomicBool = AtomicBool::new(false);
static INSTALLED: OnceLock<bool> = OnceLock::new();

/// The flag that Ctrl-C raises, with the handler installed on first use; `None` if no
/// handler could be installed (then Ctrl-C ends the process as usual).
pub fn flag() -> Option<&'static AtomicBool> {
    let installed = *INSTALLED.get_or_init(|| {
        ctrlc::set_handler(|| {
            if RAISED.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            eprintln!("interrupted: finishing the report (Ctrl-C again to quit at once)");
        })
        .is_ok()
    });
    installed.then_some(&RAISED)
}

/// Whether Ctrl-C was pressed.
pub fn raised() -> bool {
    RAISED.load(Ordering::SeqCst)
}
