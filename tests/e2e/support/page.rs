//! The page as the tests read and drive it, whatever the browser: one trait, [`PageDriver`], with two
//! methods per browser (load a URL, evaluate a script) and everything else written once on top of them, the
//! DOM snippets included: how a `data-testid` element, the run's state and the table's row labels are read,
//! how the import box is filled. Chromium's driver is [`super::chromium`], Firefox's [`super::firefox`].

use std::time::Duration;

use super::wait_for;

/// The text of the element with `data-testid` `id`, "" while there is none.
pub(crate) fn testid_js(id: &str) -> String {
    format!("document.querySelector(\"[data-testid='{id}']\")?.textContent ?? ''")
}

/// The run's state (`idle`, `running`, `done`, `invalid`...): the status line's `data-state`.
pub(crate) const STATE_JS: &str = "document.querySelector(\"[data-testid='status']\")?.dataset.state ?? ''";

/// The statistics table's row labels (each row's `data-case`), one a line.
pub(crate) const ROW_LABELS_JS: &str =
    "[...document.querySelectorAll(\"[data-testid='stats-row']\")].map(r => r.dataset.case).join('\\n')";

/// `"true"` once the page is cross-origin isolated (on a plain host, after its worker's reload) and its form
/// drawn: ready to use.
pub(crate) const READY_JS: &str =
    "String(self.crossOriginIsolated && !!document.querySelector(\"[data-testid='run']\"))";

/// `"true"` once the page is cross-origin isolated (on a plain host, after its worker's reload) and its run done.
pub(crate) const ISOLATED_AND_DONE_JS: &str = "String(self.crossOriginIsolated && \
     document.querySelector(\"[data-testid='status']\")?.dataset.state === 'done')";

/// The start of the page's visible text, for failure messages about a page that is not what was expected.
pub(crate) const BODY_TEXT_JS: &str = "document.body.innerText.slice(0, 400)";

/// A click on the element with `data-testid` `id`, in script.
fn click_js(id: &str) -> String {
    format!("document.querySelector(\"[data-testid='{id}']\").click(); ''")
}

/// Paste `json` into the import box and press its button, as a user would.
fn paste_import_js(json: &str) -> String {
    format!(
        "const t = document.querySelector(\"[data-testid='import-paste']\"); t.value = {}; \
         t.dispatchEvent(new Event('input')); document.querySelector(\"[data-testid='import-paste-button']\").click(); ''",
        serde_json::to_string(json).unwrap()
    )
}

/// One page in one browser. Methods take `&self`, so a test's wait can read the page in both its condition
/// and its failure message (two closures borrowing the same page).
pub(crate) trait PageDriver {
    /// Load `url` in the page (without waiting for it to be ready to use: [`PageDriver::open`] does).
    fn navigate(&self, url: &str);

    /// Evaluate `js` in the page: its value when it is a string (`None` when it is not), or why it could not
    /// be evaluated (a script error, the page between documents).
    fn evaluate(&self, js: &str) -> Result<Option<String>, String>;

    /// `js`'s string value ("" when it is not a string); a script that cannot be evaluated fails the test.
    fn eval(&self, js: &str) -> String {
        self.evaluate(js).unwrap_or_else(|e| panic!("evaluating {js}: {e}")).unwrap_or_default()
    }

    /// `js`'s string value, or "" while it cannot be evaluated (the page between documents: the worker's reload).
    fn try_eval(&self, js: &str) -> String {
        self.evaluate(js).ok().flatten().unwrap_or_default()
    }

    /// Open `url` and wait until the page is ready to use: isolated (on a plain host, after the worker's one
    /// reload) with its form drawn.
    fn open(&self, url: &str) {
        self.navigate(url);
        let why = || format!("the page at {url} never became ready and isolated: {}", self.try_eval(BODY_TEXT_JS));
        super::wait_until("the page ready", Duration::from_secs(60), || self.try_eval(READY_JS) == "true", why);
    }

    /// The text of the element with `data-testid` `id`, "" while there is none.
    fn testid(&self, id: &str) -> String {
        self.eval(&testid_js(id))
    }

    /// The run's state: `idle`, `running`, `done`, `invalid`...
    fn state(&self) -> String {
        self.eval(STATE_JS)
    }

    /// The statistics table's row labels, top to bottom.
    fn row_labels(&self) -> Vec<String> {
        self.eval(ROW_LABELS_JS).lines().map(str::to_string).collect()
    }

    /// Click the element with `data-testid` `id`.
    fn click(&self, id: &str) {
        self.eval(&click_js(id));
    }

    /// Paste `json` into the import box and press its button, as a user would.
    fn paste_import(&self, json: &str) {
        self.eval(&paste_import_js(json));
    }

    /// The page's status line and import error, for a failure message.
    fn why(&self) -> String {
        format!(
            "status: {}; import error: {}",
            self.try_eval(&testid_js("status")),
            self.try_eval(&testid_js("import-error"))
        )
    }

    /// Evaluate `js` until `done` holds for its value, for at most `limit`; the value. Past the limit the test
    /// fails naming `what`, the last value and the page's status.
    fn wait_for(&self, what: &str, js: &str, limit: Duration, done: impl Fn(&str) -> bool) -> String
    where
        Self: Sized,
    {
        let last = std::cell::RefCell::new(String::new());
        let probe = || {
            let value = self.try_eval(js);
            let hit = done(&value).then(|| value.clone());
            *last.borrow_mut() = value;
            hit
        };
        wait_for(what, limit, probe, || format!("last value {:?}; {}", last.borrow(), self.why()))
    }
}
