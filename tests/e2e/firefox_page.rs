//! The page as a person opens it in Firefox: on a static host that sends no headers, its service worker
//! isolates it, a benchmark against `httpbench serve` on another port runs, its charts are drawn and a pasted
//! CLI result joins its report; served by `httpbench serve`, a run is exported as the file Firefox saves and
//! shared as a link that the CLI reads and Firefox opens as that report, without running anything. Firefox is
//! driven over its built-in WebDriver BiDi (`support::firefox`).

use std::time::Duration;

use httpbench_shared::parse::parse_reports;
use httpbench_shared::protocol::share;

use crate::support::cli::run;
use crate::support::firefox::Firefox;
use crate::support::page::{PageDriver, ISOLATED_AND_DONE_JS, ROW_LABELS_JS, STATE_JS};
use crate::support::serve::Serve;
use crate::support::site::{autorun_query, dist, plain_static_server};
use crate::support::wait_for;

#[test]
#[ignore = "needs the built page (dist/), Chromium and Firefox ESR: scripts/test.sh runs it"]
fn in_firefox_on_a_host_without_headers_the_worker_isolates_the_page_and_it_runs() {
    let target = Serve::start();
    let (_site, site) = plain_static_server(&dist());
    let firefox = Firefox::start();
    firefox.navigate(&format!("{site}?{}", autorun_query(&target.url).to_query()));
    firefox.wait_for("isolated and done", ISOLATED_AND_DONE_JS, Duration::from_secs(120), |v| v == "true");
    assert_eq!(firefox.testid("isolation"), "by the page's service worker");
    let report = parse_reports(&firefox.testid("result-json")).expect("the page's result file")[0].clone();
    assert!(report.environment.user_agent.as_deref().unwrap_or_default().contains("Firefox/"), "{report:?}");
    assert_eq!(report.environment.cross_origin_isolated, Some(true));
    let step = report.environment.timer_resolution_ns.expect("a measured timer step");
    assert!(step <= 20_000.0, "an isolated Firefox page's timer steps by 20 µs, not 1 ms: {step} ns");
    for c in &report.cases {
        assert_eq!(c.ok, 20, "{} against httpbench serve on another port: {c:?}", c.client);
    }
    // The charts are drawn: a bar per case.
    let bars = firefox
        .eval("String(document.querySelector(\"[data-testid='rate-chart']\").innerHTML.split('<rect').length - 1)");
    assert_eq!(bars, "2", "fetch and js-fetch");
    // A CLI result pasted in joins the report, each case named by its environment.
    let (code, cli_json, err) =
        run(&["run", &target.url, "-n", "50", "--clients", "curl", "--mode", "reuse", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    firefox.paste_import(&cli_json);
    let labels =
        firefox.wait_for("the imported rows", ROW_LABELS_JS, Duration::from_secs(30), |l| l.contains("native/"));
    assert!(labels.contains("firefox/fetch") && labels.contains("native/curl"), "{labels}");
    let report = firefox.testid("report");
    assert!(report.contains("· firefox "), "the header names the engine: {report}");
}

#[test]
#[ignore = "needs the built page (dist/), Chromium and Firefox ESR: scripts/test.sh runs it"]
fn in_firefox_a_run_is_exported_as_a_file_and_shared_as_a_link_that_opens_as_its_report() {
    let dist = dist();
    // The page posts its result back: into a folder of the test's, not the default one in the working tree.
    let results = tempfile::tempdir().unwrap();
    let serve =
        Serve::start_with(&["--page-dir", dist.to_str().unwrap(), "--results-dir", results.path().to_str().unwrap()]);
    // Downloads land in a folder of the test's, without a dialog.
    let downloads = tempfile::tempdir().unwrap();
    let prefs = format!(
        "user_pref(\"browser.download.folderList\", 2);\nuser_pref(\"browser.download.dir\", {:?});\n\
         user_pref(\"browser.download.useDownloadDir\", true);\n\
         user_pref(\"browser.download.always_ask_before_handling_new_types\", false);\n\
         user_pref(\"browser.helperApps.neverAsk.saveToDisk\", \"application/json\");\n",
        downloads.path().to_str().unwrap()
    );
    let firefox = Firefox::start_with(&prefs);
    let page = format!("{}app/", serve.url);
    firefox.navigate(&format!("{page}?{}", autorun_query(&serve.url).to_query()));
    firefox.wait_for("the run done", STATE_JS, Duration::from_secs(120), |s| s == "done");
    let own = parse_reports(&firefox.testid("result-json")).expect("the page's result file");

    // Export: the file Firefox saves is the page's result file.
    firefox.click("export-json");
    // Firefox writes the download beside a `.part` file, and the `.json` may be there, empty, before it is
    // whole: the export is done once no `.part` is left and the file's text is a result file.
    let listing = || std::fs::read_dir(downloads.path()).unwrap().flatten().map(|e| e.path()).collect::<Vec<_>>();
    let done = || {
        let files = listing();
        let saved = files.iter().find(|p| p.extension().is_some_and(|x| x == "json"))?;
        if files.iter().any(|p| p.extension().is_some_and(|x| x == "part")) {
            return None;
        }
        let text = std::fs::read_to_string(saved).ok()?;
        Some((saved.clone(), parse_reports(&text).ok()?))
    };
    let why = || format!("in the folder: {:?}; {}", listing(), firefox.why());
    let (saved, exported) = wait_for("a whole result file exported", Duration::from_secs(30), done, why);
    assert_eq!(exported, own, "{}", saved.display());

    // Share: the link carries that report, the CLI reads it, and Firefox opens it as that report.
    firefox.click("share");
    let value = "document.querySelector(\"[data-testid='share-link']\").value";
    let link = firefox.wait_for("the link", value, Duration::from_secs(30), |v| v.contains("#r="));
    assert!(link.starts_with(&page), "the page's own address, then #r=: {link}");
    assert_eq!(parse_reports(&share::decode(&link).unwrap()).unwrap(), own);
    let (code, text, err) = run(&["compare", &link]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("[link] httpbench-web") && text.contains("· firefox ") && text.contains("js-fetch"),
        "{text}"
    );
    firefox.navigate("about:blank");
    firefox.navigate(&link);
    let labels =
        firefox.wait_for("the shared rows", ROW_LABELS_JS, Duration::from_secs(30), |l| l.lines().count() == 2);
    let mut labels: Vec<&str> = labels.lines().collect();
    labels.sort();
    assert_eq!(labels, ["fetch", "js-fetch"], "one report: the labels name the clients alone");
    assert!(firefox.testid("imported").contains("shared-link"), "{}", firefox.testid("imported"));
    assert_eq!(firefox.state(), "idle", "nothing was run");
}
