//! Results as links: `httpbench share` puts result files in a page link and `compare` reads it back; the page's
//! Share button makes a link the CLI reads, and a link the CLI made opens in the page as that report, without a
//! run (headless Chromium on the built page). Both code links with shared's `protocol::share` (its unit tests
//! hold the format); here each front end's wiring is tested: the button, the page reading its fragment at
//! start, `share` and `compare`.

use std::time::Duration;

use httpbench_shared::parse::parse_reports;
use httpbench_shared::protocol::share;

use crate::support::chromium::{Chromium, ChromiumPage};
use crate::support::cli::run;
use crate::support::page::PageDriver;
use crate::support::scratch;
use crate::support::site::{dist, Origin};

/// A CLI result file, in a scratch folder of its own named `name`.
fn cli_result(name: &str) -> String {
    let path = scratch(name).join("cli.json");
    let (code, _, err) = run(&[
        "run",
        "-n",
        "30",
        "--clients",
        "curl,raw",
        "--mode",
        "reuse",
        "--no-progress",
        "--export-json",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    path.to_string_lossy().into_owned()
}

#[test]
fn share_makes_a_link_that_compare_reads_as_the_file() {
    let file = cli_result("share-cli");
    let (code, link, err) = run(&["share", &file, "--page", "https://me.example/httpbench/"]);
    assert_eq!(code, 0, "{err}");
    let link = link.trim();
    assert!(link.starts_with("https://me.example/httpbench/#r="), "{link}");
    let from_link = run(&["compare", link, "--format", "json"]);
    let from_file = run(&["compare", &file, "--format", "json"]);
    assert_eq!(from_link.0, 0, "{}", from_link.2);
    assert_eq!(parse_reports(&from_link.1).unwrap(), parse_reports(&from_file.1).unwrap());
    let (code, _, err) = run(&["compare", &link[..link.len() - 30]]);
    assert_eq!(code, 2);
    assert!(err.contains("https://me.example/httpbench/#r=") && err.contains("cut short"), "{err}");
}

#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn on_the_serve_origin_the_page_shares_a_run_as_a_link_and_opens_links_as_reports() {
    shares_and_opens(Origin::Serve);
}

#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn on_a_plain_static_host_the_page_shares_a_run_as_a_link_and_opens_links_as_reports() {
    shares_and_opens(Origin::PlainStatic);
}

fn shares_and_opens(origin: Origin) {
    let site = origin.start(&dist());
    let page = site.page.clone();
    let chromium = Chromium::launch();
    let tab = chromium.page();
    let query = format!("?target={}&n=20&warmup=2&rounds=2&clients=js-fetch,fetch&mode=reuse", site.target);
    tab.open(&format!("{page}{query}"));
    tab.click("run");
    wait(|| tab.state() == "done", "the run", &tab);
    tab.click("share");
    let value = "document.querySelector(\"[data-testid='share-link']\").value";
    wait(|| tab.eval(value).contains("#r="), "the link", &tab);
    // Whether the browser lets the page write the clipboard or not, the page says which.
    wait(|| !tab.testid("copy-status").is_empty(), "what became of the copy", &tab);
    let said = tab.testid("copy-status");
    assert!(said == "Copied to the clipboard." || said.starts_with("The browser gave no clipboard"), "{said}");
    let link = tab.eval(value);
    assert!(link.starts_with(&page) && link.contains(query.as_str()), "the page's own address, then #r=: {link}");
    // The CLI reads the page's link: the very report the page holds.
    let shared = parse_reports(&share::decode(&link).unwrap()).unwrap();
    assert_eq!(shared, parse_reports(&tab.testid("result-json")).unwrap());
    // And the page opens its own link as that report, under the tag shared-link.
    let own = chromium.page();
    own.open(&link);
    wait(|| own.row_labels().len() == 2, "the page's own shared rows", &own);
    let mut rows = own.row_labels();
    rows.sort();
    assert_eq!(rows, ["fetch", "js-fetch"]);
    assert!(own.testid("imported").contains("shared-link"), "{}", own.testid("imported"));
    assert_eq!(own.state(), "idle", "nothing was run");

    // The CLI's link opens in a fresh tab as that report, nothing run.
    let file = cli_result("share-page");
    let (_, cli_link, _) = run(&["share", &file, "--page", &page]);
    let fresh = chromium.page();
    fresh.open(cli_link.trim());
    wait(|| fresh.row_labels().len() == 2, "the shared rows", &fresh);
    assert_eq!(fresh.row_labels(), ["curl", "raw"], "one mode: the labels name the clients alone");
    assert!(fresh.testid("imported").contains("shared-link"), "{}", fresh.testid("imported"));
    assert_eq!(fresh.state(), "idle", "nothing was run");
    assert!(fresh.testid("report").contains("[shared-link]"), "{}", fresh.testid("report"));

    // A link cut short says so where imports report their errors.
    let cut = chromium.page();
    cut.open(&cli_link.trim()[..cli_link.trim().len() - 40]);
    wait(|| cut.testid("import-error").contains("shared-link"), "the error", &cut);
    let error = cut.testid("import-error");
    assert!(error.starts_with("shared-link: ") && error.ends_with("was the link cut short?"), "{error}");
    assert!(cut.row_labels().is_empty());
}

/// Wait for the page in `tab` (the bounded wait of these tests), saying its status and import error if not.
fn wait(done: impl FnMut() -> bool, what: &str, tab: &ChromiumPage) {
    crate::support::wait_until(what, Duration::from_secs(120), done, || tab.why());
}
