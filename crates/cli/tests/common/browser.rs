//! Headless Chromium for the tests of the HTML pages the tool writes: a screenshot
//! and the page's DOM, or `None` (the test skips, saying why) where it is missing.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

/// A headless browser with a profile of its own in `dir`.
pub struct Browser {
    program: &'static str,
    profile: PathBuf,
}

impl Browser {
    /// The installed Chromium, if any.
    pub fn find(dir: &Path) -> Option<Browser> {
        let program = ["chromium", "chromium-browser"].into_iter().find(|c| {
            std::process::Command::new(c)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })?;
        Some(Browser {
            program,
            profile: dir.join("profile"),
        })
    }

    fn run(&self, page: &Path, extra: &[&str]) -> Output {
        std::process::Command::new(self.program)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ])
            .arg(format!("--user-data-dir={}", self.profile.display()))
            .args(extra)
            .arg(format!("file://{}", page.display()))
            .stdin(Stdio::null())
            .output()
            .expect("run chromium")
    }

    /// Renders `page` into the PNG `shot`, and checks that it is one.
    pub fn screenshot(&self, page: &Path, shot: &Path) {
        let out = self.run(
            page,
            &[
                &format!("--screenshot={}", shot.display()),
                "--window-size=1200,1600",
            ],
        );
        let png = std::fs::read(shot).unwrap_or_else(|e| {
            panic!(
                "no screenshot ({e}): {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        assert!(
            png.len() > 1000 && png.starts_with(b"\x89PNG\r\n\x1a\n"),
            "{} bytes",
            png.len()
        );
    }

    /// The DOM of `page` once loaded.
    pub fn dom(&self, page: &Path) -> String {
        String::from_utf8_lossy(&self.run(page, &["--dump-dom"]).stdout).into_owned()
    }
}
