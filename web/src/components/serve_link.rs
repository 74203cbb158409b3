//! The page's link to `httpbench serve`: when the page was served by it (`serve.json` answers beside the
//! page), every finished run is posted back to its results endpoint, where the terminal prints it and saves
//! it. `?import=URL,URL` (read by shared's `PageQuery`) loads result files at start (e.g. `/results/NAME.json`
//! saved by the server), so a link can open a browser-vs-native comparison. On any other static host both
//! quietly do nothing.

use gloo_net::http::Request;
use httpbench_shared::model::Report;
use httpbench_shared::Source;
use leptos::prelude::*;

use super::import_export::import_text;
use super::PageState;

/// `serve.json`, `{"results": "/results", ...}`: the path of the results endpoint (a struct, not a
/// `serde_json::Value`, which would bring a second copy of every deserializer into the page).
#[derive(serde::Deserialize)]
struct ServeDescription {
    results: String,
}

/// Post `report` to the server that served the page, if it is `httpbench serve`; the outcome for the status
/// line, or `None` when the page is hosted elsewhere.
pub async fn post_back(report: &Report) -> Option<String> {
    let description = Request::get("serve.json").send().await.ok().filter(|r| r.ok())?;
    let results = description.json::<ServeDescription>().await.ok()?.results;
    let json = httpbench_shared::render::json(&[Source::new(report)]);
    let sent = match Request::post(&results).header("content-type", "application/json").body(json) {
        Ok(request) => request.send().await,
        Err(e) => return Some(format!("Not sent to httpbench serve: {e}.")),
    };
    Some(match sent {
        Ok(r) if r.ok() => "Sent to httpbench serve.".to_string(),
        Ok(r) => format!("httpbench serve refused the result ({}): {}", r.status(), r.text().await.unwrap_or_default()),
        Err(e) => format!("Not sent to httpbench serve: {e}."),
    })
}

/// Fetch and import every URL of `urls` (the query's `import`, read by shared's `PageQuery`); problems go to
/// the status line.
pub async fn import_all(state: PageState, urls: Vec<String>) {
    let mut problems = Vec::new();
    for url in urls {
        let tag = url.rsplit('/').next().unwrap_or(&url).trim_end_matches(".json").to_string();
        let text = match Request::get(&url).send().await {
            Ok(r) if r.ok() => r.text().await.map_err(|e| format!("{url}: {e}")),
            Ok(r) => Err(format!("{url}: HTTP {}", r.status())),
            Err(e) => Err(format!("{url}: {e}")),
        };
        if let Err(e) = text.and_then(|t| import_text(state, &tag, &t).map(|_| ())) {
            problems.push(e);
        }
    }
    if !problems.is_empty() {
        state.message.set(format!("Import failed: {}", problems.join("; ")));
    }
}
