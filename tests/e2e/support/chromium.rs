//! The page in headless Chromium, driven over the DevTools protocol: the browser ([`Chromium`], found and
//! started as `run --browser` starts it) and its tabs ([`ChromiumPage`], a [`PageDriver`]), with what only
//! Chromium does here: a real mouse click, and screenshots of the whole page at a given width.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use headless_chrome::protocol::cdp::Emulation::{MediaFeature, SetDeviceMetricsOverride, SetEmulatedMedia};
use headless_chrome::protocol::cdp::Page::{CaptureScreenshot, CaptureScreenshotFormatOption, Viewport};
use headless_chrome::{Browser, LaunchOptions, Tab};

use super::page::PageDriver;
use super::{root, wait_until};

/// Chromium with a fresh profile, removed with it.
pub(crate) struct Chromium {
    browser: Browser,
    _profile: tempfile::TempDir,
}

impl Chromium {
    /// Start headless Chromium, found as `run --browser` finds it: HTTPBENCH_CHROMIUM, else the names it tries
    /// on PATH.
    pub(crate) fn launch() -> Chromium {
        let profile = tempfile::tempdir().unwrap();
        let explicit = std::env::var_os("HTTPBENCH_CHROMIUM").map(PathBuf::from);
        let chromium = httpbench::browser::find_chromium(explicit.as_deref()).unwrap_or_else(|e| panic!("{e}"));
        let options = LaunchOptions::default_builder()
            .path(Some(chromium))
            .headless(false) // --headless=new is in the args; the library's own flag is the old mode
            .sandbox(false)
            .window_size(Some((1280, 1800)))
            .user_data_dir(Some(profile.path().to_path_buf()))
            .idle_browser_timeout(Duration::from_secs(180))
            .args(httpbench::browser::CHROMIUM_FLAGS.iter().map(OsStr::new).collect())
            .build()
            .unwrap();
        let browser = Browser::new(options).expect("headless Chromium starts (scripts/setup-web.sh installs it)");
        Chromium { browser, _profile: profile }
    }

    /// A new tab, whose every command waits at most 60 s.
    pub(crate) fn page(&self) -> ChromiumPage {
        let tab = self.browser.new_tab().unwrap();
        tab.set_default_timeout(Duration::from_secs(60));
        ChromiumPage { tab }
    }
}

/// One tab of [`Chromium`].
pub(crate) struct ChromiumPage {
    tab: Arc<Tab>,
}

impl PageDriver for ChromiumPage {
    /// Loads `url` and waits for its load to end.
    fn navigate(&self, url: &str) {
        self.tab.navigate_to(url).unwrap().wait_until_navigated().unwrap();
    }

    fn evaluate(&self, js: &str) -> Result<Option<String>, String> {
        let value = self.tab.evaluate(js, false).map_err(|e| e.to_string())?.value;
        Ok(value.and_then(|v| v.as_str().map(str::to_string)))
    }

    /// A mouse click at the element, as a user's, once it is there.
    fn click(&self, id: &str) {
        self.tab.wait_for_element(&format!("[data-testid='{id}']")).unwrap().click().unwrap();
    }
}

impl ChromiumPage {
    /// What axe-core (installed by scripts/setup-web.sh in .tools/axe) finds wrong in the page as it is now,
    /// one line per rule broken, `id (impact): the first element's selector and what to fix`; every impact
    /// counts.
    pub(crate) fn accessibility_violations(&self) -> Vec<String> {
        let script = root().join(".tools/axe/node_modules/axe-core/axe.min.js");
        let axe = std::fs::read_to_string(&script)
            .unwrap_or_else(|e| panic!("{}: {e}: run scripts/setup-web.sh", script.display()));
        self.tab.evaluate(&axe, false).unwrap();
        let run = "axe.run(document, { resultTypes: ['violations'] }).then(r => JSON.stringify(r.violations.map(v => \
                   `${v.id} (${v.impact}): ${v.nodes[0].target.join(' ')}: ${v.nodes[0].failureSummary}`)))";
        let value = self.tab.evaluate(run, true).unwrap().value.expect("axe's result");
        serde_json::from_str(value.as_str().expect("a string")).expect("a JSON list")
    }

    /// The page as a reader whose system is dark (`prefers-color-scheme: dark`), or light again.
    pub(crate) fn dark(&self, on: bool) {
        let value = if on { "dark" } else { "light" }.to_string();
        let feature = MediaFeature { name: "prefers-color-scheme".into(), value };
        self.tab.call_method(SetEmulatedMedia { media: None, features: Some(vec![feature]) }).unwrap();
    }

    /// A PNG of the whole page (not just the window) at `width` CSS pixels, saved as `tests/artifacts/NAME`.
    pub(crate) fn screenshot(&self, width: u32, name: &str) -> PathBuf {
        self.tab
            .call_method(SetDeviceMetricsOverride {
                width,
                height: 900,
                device_scale_factor: 1.0,
                mobile: width < 600,
                scale: None,
                screen_width: None,
                screen_height: None,
                position_x: None,
                position_y: None,
                dont_set_visible_size: None,
                screen_orientation: None,
                viewport: None,
                display_feature: None,
                device_posture: None,
            })
            .unwrap();
        self.settle_at(width);
        let height: f64 = self.eval("String(document.documentElement.scrollHeight)").parse().unwrap();
        let shot = self
            .tab
            .call_method(CaptureScreenshot {
                format: Some(CaptureScreenshotFormatOption::Png),
                quality: None,
                clip: Some(Viewport { x: 0.0, y: 0.0, width: f64::from(width), height, scale: 1.0 }),
                from_surface: Some(true),
                capture_beyond_viewport: Some(true),
                optimize_for_speed: None,
            })
            .unwrap();
        use base64::Engine;
        let png = base64::engine::general_purpose::STANDARD.decode(shot.data).unwrap();
        let dir = root().join("tests/artifacts");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, png).unwrap();
        path
    }

    /// Wait until the layout at `width` is drawn: the viewport has it and two frames have been painted.
    fn settle_at(&self, width: u32) {
        let settled =
            "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(String(innerWidth)))))";
        let drawn = || {
            let value = self.tab.evaluate(settled, true).ok().and_then(|v| v.value);
            value.and_then(|v| v.as_str().map(str::to_string))
        };
        wait_until("the new width drawn", Duration::from_secs(10), || drawn() == Some(width.to_string()), String::new);
    }
}
