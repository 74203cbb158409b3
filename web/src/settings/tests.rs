//! The page's settings read from links and the form, natively: defaults, the query string through shared's
//! `PageQuery`, the duration that replaces the count, and the messages that name a bad value.

use httpbench_shared::model::HttpVersion;
use httpbench_shared::session::Budget;
use httpbench_shared::Mode;

use super::*;

const ORIGIN: &str = "http://127.0.0.1:9000";

fn from_link(search: &str) -> RawSettings {
    RawSettings::from_query(ORIGIN, &PageQuery::parse(search))
}

/// What `check` refuses, after `f` changed the defaults.
fn refused(f: fn(&mut RawPlan)) -> String {
    let mut s = RawSettings::defaults("http://h:1");
    f(&mut s.plan);
    s.check(None).unwrap_err()
}

#[test]
fn query_overrides_defaults_and_decodes() {
    let s = from_link(concat!(
        "?target=http%3A%2F%2F127.0.0.1%3A8080%2Fbytes%2F10",
        "&n=40&warmup=2&rounds=2&clients=fetch,xhr&mode=reuse&c=1,8&autorun=1"
    ));
    assert!(s.autorun);
    let r = s.check(None).unwrap();
    assert_eq!(r.targets, Targets::one("http://127.0.0.1:8080/bytes/10"));
    assert_eq!(r.plan, Plan { budget: Budget::Count(40), warmup: 2, rounds: 2, interleave: true });
    assert_eq!(r.matrix.clients, ["fetch", "xhr"]);
    assert_eq!(r.matrix.modes, [Mode::Reuse]);
    assert_eq!(r.matrix.concurrency, [1, 8]);
    assert_eq!(from_link("").check(None).unwrap().matrix.concurrency, [1], "sequential unless the link says");
}

#[test]
fn a_link_carries_the_whole_plan_of_run_browser() {
    let q = concat!(
        "?target=https%3A%2F%2F127.0.0.1%3A8443%2F&target_h1=https%3A%2F%2F127.0.0.1%3A8444%2F",
        "&n=40&rounds=2&interleave=0&timeout=2500ms&clients=fetch&mode=both&http=both&c=1,8",
        "&size=0,16384&delay=5ms"
    );
    let r = from_link(q).check(None).unwrap();
    assert!(!r.plan.interleave);
    assert_eq!(r.timeout, Duration::from_millis(2500));
    assert_eq!(r.targets.of_version(HttpVersion::Http11), "https://127.0.0.1:8444/");
    assert_eq!(r.targets.of_version(HttpVersion::Http2), "https://127.0.0.1:8443/");
    let m = &r.matrix;
    assert_eq!((m.tls, m.negotiated), (true, false));
    assert_eq!(m.http_versions, [HttpVersion::Http11, HttpVersion::Http2]);
    assert_eq!((m.body_sizes.clone(), m.server_delays_ms.clone()), (vec![Some(0), Some(16384)], vec![Some(5)]));
    let (cases, skipped) = m.cases();
    assert_eq!(cases.len(), 2 * 2 * 2 * 2 - 2, "fresh over HTTP/2 at 8 in flight is left out, at both sizes");
    assert_eq!(skipped, ["fetch/fresh over HTTP/2 at concurrency 8 (a browser multiplexes its requests in flight on one HTTP/2 connection)"]);
    let by_hand = from_link("?target=https%3A%2F%2Fh%2F").check(None).unwrap().matrix;
    assert!(by_hand.negotiated && by_hand.http_versions == [HttpVersion::Http2], "{by_hand:?}");
    assert_eq!(from_link("").check(None).unwrap().matrix.http_versions, [HttpVersion::Http11]);
    assert_eq!(from_link("").check(None).unwrap().timeout, DEFAULT_TIMEOUT);
}

#[test]
fn defaults_run_every_client_of_this_build_in_both_modes_by_count() {
    let d = RawSettings::defaults(ORIGIN).check(None).unwrap();
    assert_eq!(d.targets.default, "http://127.0.0.1:9000/");
    assert_eq!(d.matrix.clients, available_clients());
    assert_eq!(d.matrix.modes, [Mode::Fresh, Mode::Reuse]);
    assert_eq!(d.plan, Plan { budget: Budget::Count(500), warmup: 20, rounds: 5, interleave: true });
    assert_eq!(RawSettings::defaults("null").plan.target, "http://127.0.0.1:8080/");
    assert_eq!(from_link(""), RawSettings::defaults(ORIGIN), "an empty query leaves every default");
}

#[test]
fn this_builds_clients_come_from_the_catalog() {
    let expected: &[&str] = if cfg!(feature = "reqwest") {
        &["fetch", "gloo-net", "xhr", "reqwest", "js-fetch"]
    } else {
        &["fetch", "gloo-net", "xhr", "js-fetch"]
    };
    assert_eq!(available_clients(), expected);
    let reqwest = from_link("clients=reqwest").check(None);
    assert_eq!(reqwest.is_ok(), cfg!(feature = "reqwest"), "{reqwest:?}");
}

#[test]
fn a_duration_replaces_the_count() {
    let r = from_link("duration=300ms&n=lots&rounds=2").check(None).unwrap();
    assert_eq!(r.plan.budget, Budget::Duration(Duration::from_millis(300)), "the count is not read at all");
    assert_eq!(r.plan.rounds, 2);
    let r = from_link("duration=1m%2030s").check(None).unwrap();
    assert_eq!(r.plan.budget, Budget::Duration(Duration::from_secs(90)));
    let r = from_link("duration=2.5").check(None).unwrap();
    assert_eq!(r.plan.budget, Budget::Duration(Duration::from_millis(2500)), "bare seconds, as the CLI");
    let r = from_link("duration=%20%20&n=7").check(None).unwrap();
    assert_eq!(r.plan.budget, Budget::Count(7), "a blank duration is no duration");
}

#[test]
fn a_bad_duration_is_named() {
    let e = refused(|s| s.duration = "soon".into());
    assert!(e.starts_with("duration: 'soon' is not a usable time"), "{e}");
    assert!(refused(|s| s.duration = "0s".into()).starts_with("duration: '0s'"));
    assert!(refused(|s| s.duration = "3d".into()).starts_with("duration: '3d'"), "more than a day");
}

#[test]
fn client_lists_keep_the_order_given_and_all_expands() {
    let r = from_link("clients=js-fetch,fetch,js-fetch").check(None).unwrap();
    assert_eq!(r.matrix.clients, ["js-fetch", "fetch"]);
    let r = from_link("clients=xhr,all").check(None).unwrap();
    assert_eq!(r.matrix.clients[0], "xhr");
    assert_eq!(r.matrix.clients.len(), available_clients().len());
}

#[test]
fn bad_values_are_named() {
    assert_eq!(refused(|s| s.count = "0".into()), "count 0 is out of range: give 1 to 1000000");
    assert_eq!(refused(|s| s.count = "2000000".into()), "count 2000000 is out of range: give 1 to 1000000");
    assert_eq!(refused(|s| s.rounds = "200".into()), "rounds 200 is out of range: give 1 to 100");
    assert!(refused(|s| s.rounds = "x".into()).starts_with("rounds: 'x' must be a whole number"));
    assert!(refused(|s| s.warmup = "-1".into()).starts_with("warm-up: '-1'"));
    assert!(refused(|s| s.count = "3".into()).starts_with("count 3 is fewer than rounds 5"));
    assert!(refused(|s| s.timeout = "0".into()).starts_with("timeout: '0' is not a usable timeout"));
    assert!(refused(|s| s.interleave = "maybe".into()).starts_with("interleave: 'maybe'"));
    assert!(refused(|s| s.body_sizes = "2g".into()).starts_with("body sizes: '2g'"));
    assert!(refused(|s| s.server_delays = "soon".into()).starts_with("server delays: 'soon'"));
    assert!(refused(|s| s.http = "4".into()).starts_with("http: HTTP version '4'"));
    assert!(refused(|s| s.http = "3".into()).starts_with("http 3: HTTP/2 and HTTP/3 are measured over TLS only"));
    assert!(refused(|s| s.http = "2".into()).ends_with("give an https target"));
    let e = refused(|s| {
        s.target = "https://h:1/".into();
        (s.http, s.mode, s.concurrency) = ("2".into(), "fresh".into(), "8".into());
    });
    assert!(e.starts_with("no browser case can run: fetch/fresh over HTTP/2 at concurrency 8"), "{e}");
    assert!(e.ends_with("; add mode reuse or a level of 1 to requests in flight"), "{e}");
    // In WebKit (the page's engine, read off its user agent): no HTTP/3, named, and what to do.
    let mut s = RawSettings::defaults(ORIGIN);
    (s.plan.target, s.plan.http) = ("https://h:1/".into(), "3".into());
    let e = s.check(Some(Engine::Webkit)).unwrap_err();
    assert!(e.starts_with("no webkit case can run: fetch over HTTP/3 (WebKitGTK's network stack"), "{e}");
    assert!(e.ends_with("; add a version webkit speaks to http"), "{e}");
    assert_eq!(s.check(Some(Engine::Chromium)).unwrap().matrix.http_versions, [HttpVersion::Http3]);
    let e = refused(|s| s.clients = "curl".into());
    assert!(e.starts_with("clients: unknown client 'curl'") && e.contains("fetch, gloo-net"), "{e}");
    assert!(refused(|s| s.clients = String::new()).contains("names no client"));
    assert!(refused(|s| s.mode = "new".into()).starts_with("mode: 'new' is not a mode"));
    assert!(
        refused(|s| s.target = "ftp://x/".into()).starts_with("target: 'ftp://x/' is not an http:// or https:// URL")
    );
    assert!(refused(|s| s.concurrency = "0".into()).starts_with("requests in flight: '0' is not a concurrency level"));
}

#[test]
fn an_https_page_that_reached_nothing_says_why() {
    let hint = unreachable_hint("https:", "http://127.0.0.1:8080/", true).unwrap();
    assert!(hint.contains("mixed content") && hint.contains("local network"), "{hint}");
    let tls = unreachable_hint("https:", "https://127.0.0.1:8443/", true).unwrap();
    assert!(!tls.contains("mixed content") && tls.contains("local network"), "{tls}");
    assert_eq!(unreachable_hint("http:", "http://127.0.0.1:8080/", true), None);
    assert_eq!(unreachable_hint("https:", "http://127.0.0.1:8080/", false), None);
}

#[test]
fn a_page_started_by_a_run_keeps_its_id_and_a_bad_one_is_refused() {
    assert_eq!(from_link("?page=firefox").check(None).unwrap().page.as_deref(), Some("firefox"));
    assert_eq!(from_link("").check(None).unwrap().page, None, "a page opened by hand takes no turns");
    let e = from_link("?page=a%20b").check(None).unwrap_err();
    assert!(e.contains("'a b'") && e.contains("page"), "{e}");
}

/// A page opened by hand refuses a plan of more cases than one report shows, in the CLI's words: its export
/// would be a file its own import and `compare` refuse.
#[test]
fn a_plan_beyond_the_case_cap_is_refused_as_the_cli_refuses_it() {
    let e = refused(|s| (s.concurrency, s.body_sizes) = ("1,2,4,8,16,32,64".into(), "0,1,2,3,4,5,6,7,8,9".into()));
    let cases = 2 * 7 * 10 * available_clients().len();
    assert_eq!(
        e,
        format!(
            "{cases} cases (clients x modes x HTTP versions x load levels, over every environment of the run) are \
             more than the 500 one report shows: scan fewer clients or values"
        )
    );
    let fits = from_link("c=1,2,4,8,16,32,64&size=0,1,2,3,4,5,6,7,8,9&clients=fetch,xhr&mode=reuse").check(None);
    assert_eq!(fits.map(|r| r.matrix.cases().0.len()), Ok(140));
}

#[test]
fn the_form_hears_of_every_wrong_field_with_the_clients_among_them() {
    let s = from_link("?target=ftp%3A%2F%2Fx&clients=curl&rounds=0");
    let errors = s.errors(ORIGIN, None);
    let fields: Vec<Option<Field>> = errors.iter().map(|e| e.field).collect();
    assert_eq!(fields, [Some(Field::Clients), Some(Field::Target), Some(Field::Rounds)], "{errors:?}");
    assert!(errors[0].message.starts_with("clients: unknown client 'curl'"), "{}", errors[0].message);
    assert!(from_link("").errors(ORIGIN, None).is_empty());
}
