//! Every rule of the one parse, in both spellings: the CLI's (with its own server) and the page's.

use super::*;

const CLI: FrontEnd = FrontEnd { spelling: Spelling::Cli, own_server: Some(false), takes_turns: false };
const PAGE: FrontEnd = FrontEnd { spelling: Spelling::Page, own_server: None, takes_turns: false };

/// A plan as the page's defaults fill it, against a plaintext target.
fn raw() -> RawPlan {
    RawPlan::page_defaults("http://127.0.0.1:8080/".into())
}

fn side(environment: EnvironmentKind, clients: &[&str]) -> Side {
    let clients = clients.iter().map(|c| c.to_string()).collect();
    Side { environment, clients, declared_versions: BTreeMap::new(), engine: None }
}

fn browser() -> Vec<Side> {
    vec![side(EnvironmentKind::Browser, &["fetch", "xhr"])]
}

/// What `front` says of `raw` changed by `f`, run by the browser clients.
fn refused(front: &FrontEnd, f: impl Fn(&mut RawPlan)) -> String {
    let mut r = raw();
    f(&mut r);
    r.parse(front, &browser()).unwrap_err().message
}

#[test]
fn a_plan_parses_into_the_sessions_types() {
    let input = raw().parse(&PAGE, &browser()).unwrap();
    assert_eq!(input.plan, Plan { budget: Budget::Count(500), warmup: 20, rounds: 5, interleave: true });
    assert_eq!(input.timeout, Duration::from_secs(10));
    assert_eq!(input.targets, Some(Targets::one("http://127.0.0.1:8080/")));
    let m = &input.matrices[0];
    assert_eq!((m.environment, m.clients.len(), m.negotiated), (EnvironmentKind::Browser, 2, true));
    assert_eq!(m.http_versions, [HttpVersion::Http11], "a browser over plaintext negotiates HTTP/1.1");
    let mut r = raw();
    (r.target, r.duration, r.body_sizes) = (String::new(), "2s".into(), "0,16k".into());
    let input = r.parse(&CLI, &[side(EnvironmentKind::Native, &["curl"])]).unwrap();
    assert_eq!(input.targets, None, "the CLI's own server");
    assert_eq!(input.plan.budget, Budget::Duration(Duration::from_secs(2)), "a duration replaces the count");
    assert_eq!(input.matrices[0].body_sizes, [Some(0), Some(16384)]);
}

#[test]
fn each_field_is_named_as_its_front_end_spells_it() {
    for (f, field, cli, page) in [
        (
            (|r: &mut RawPlan| r.concurrency = "0".into()) as fn(&mut RawPlan),
            Field::Concurrency,
            "-c/--concurrency: '0' is not a concurrency level",
            "requests in flight: '0' is not a concurrency level",
        ),
        (
            |r| r.body_sizes = "2g".into(),
            Field::BodySizes,
            "--body-size: '2g' is not a body size",
            "body sizes: '2g' is not",
        ),
        (|r| r.server_delays = "soon".into(), Field::ServerDelays, "--server-delay: 'soon'", "server delays: 'soon'"),
        (
            |r| r.timeout = "0".into(),
            Field::Timeout,
            "--timeout: '0' is not a usable timeout",
            "timeout: '0' is not a usable",
        ),
        (
            |r| r.duration = "soon".into(),
            Field::Duration,
            "--duration: 'soon' is not a usable time",
            "duration: 'soon' is not",
        ),
        (
            |r| r.rounds = "x".into(),
            Field::Rounds,
            "--rounds: 'x' must be a whole number",
            "rounds: 'x' must be a whole number",
        ),
        (
            |r| r.interleave = "maybe".into(),
            Field::Interleave,
            "--no-interleave: 'maybe' must be 1",
            "interleave: 'maybe' must be 1",
        ),
        (|r| r.mode = "new".into(), Field::Mode, "--mode: 'new' is not a mode", "mode: 'new' is not a mode"),
        (
            |r| r.http = "4".into(),
            Field::Http,
            "--http: HTTP version '4' is not one",
            "http: HTTP version '4' is not one",
        ),
        (
            |r| r.target = "ftp://x/".into(),
            Field::Target,
            "URL: 'ftp://x/' is not an http",
            "target: 'ftp://x/' is not an http",
        ),
        (
            |r| r.count = "3".into(),
            Field::Count,
            "-n/--count 3 is fewer than --rounds 5",
            "count 3 is fewer than rounds 5",
        ),
    ] {
        let (c, p) = (refused(&CLI, f), refused(&PAGE, f));
        assert!(c.starts_with(cli), "{c}");
        assert!(p.starts_with(page), "{p}");
        if field != Field::Count {
            let (after_c, after_p) =
                (c.strip_prefix(field.name(Spelling::Cli)), p.strip_prefix(field.name(Spelling::Page)));
            assert_eq!(after_c, after_p, "the same words after the field's name");
        }
    }
}

#[test]
fn http_2_and_3_need_tls() {
    let e = refused(&PAGE, |r| r.http = "2".into());
    assert_eq!(
        e,
        "http 2: HTTP/2 and HTTP/3 are measured over TLS only (HTTP/2 negotiated by ALPN, HTTP/3 has TLS inside \
         QUIC): give an https target"
    );
    let e = refused(&CLI, |r| (r.target, r.http) = (String::new(), "1.1,3".into()));
    assert!(e.starts_with("--http 1.1,3: HTTP/2 and HTTP/3 are measured over TLS only"), "{e}");
    assert!(e.ends_with("give an https URL or add --tls for the embedded server"), "{e}");
    let tls = FrontEnd { own_server: Some(true), ..CLI };
    let mut r = raw();
    (r.target, r.http) = (String::new(), "both".into());
    let m = &r.parse(&tls, &browser()).unwrap().matrices[0];
    assert_eq!((m.tls, m.negotiated, m.http_versions.len()), (true, false, 2), "the own server over TLS");
    r.target = "https://h/".into();
    let negotiated = RawPlan { http: String::new(), ..r }.parse(&PAGE, &browser()).unwrap().matrices.remove(0);
    assert_eq!(negotiated.http_versions, [HttpVersion::Http2], "a browser over TLS takes HTTP/2");
}

#[test]
fn load_levels_ask_the_front_ends_own_server_only() {
    let e = refused(&CLI, |r| r.server_delays = "5ms".into());
    assert!(e.starts_with("--server-delay asks the embedded server (/bytes/N, delay_ms=N), not http://"), "{e}");
    let mut r = raw();
    r.body_sizes = "1k".into();
    assert!(r.parse(&PAGE, &browser()).is_ok(), "the page cannot tell its target's server: the user's to say");
}

#[test]
fn the_case_cap_counts_every_side_and_engine_with_the_same_words() {
    let mut r = raw();
    (r.mode, r.concurrency, r.body_sizes) = ("reuse".into(), "1,2,4,8,16".into(), "0,1,2,3,4,5,6,7,8,9".into());
    let sides = browser();
    assert!(r.parse(&PAGE, &sides).is_ok(), "100 cases");
    let engines = |n: usize| vec![browser().remove(0); n];
    let e = r.parse(&PAGE, &engines(6)).unwrap_err().message;
    assert_eq!(
        e,
        "600 cases (clients x modes x HTTP versions x load levels, over every environment of the run) are more \
         than the 500 one report shows: scan fewer clients or values"
    );
    let mut sides = engines(4);
    sides.push(side(EnvironmentKind::Native, &["curl", "ureq", "raw"]));
    r.target = String::new();
    let e = r.parse(&CLI, &sides).unwrap_err().message;
    assert!(e.starts_with("550 cases"), "400 browser cases (two clients, four engines) and 150 native: {e}");
    let page = RawPlan { target: "http://h/".into(), ..r.clone() }.parse(&PAGE, &sides).unwrap_err().message;
    assert_eq!(page, e, "no field named: the same words on both sides");
    assert!(r.parse(&CLI, &engines(5)).is_ok(), "500 cases fit");
}

#[test]
fn webkit_leaves_http3_out_and_a_webkit_side_of_http3_alone_is_refused() {
    let mut r = raw();
    (r.target, r.http, r.mode) = ("https://h/".into(), "2,3".into(), "reuse".into());
    let webkit = |mut s: Side| {
        s.engine = Some(Engine::Webkit);
        s
    };
    let input = r.parse(&PAGE, &[webkit(browser().remove(0))]).unwrap();
    let (cases, skipped) = input.matrices[0].cases();
    assert!(cases.iter().all(|c| c.http == HttpVersion::Http2) && cases.len() == 2, "{cases:?}");
    assert_eq!(skipped.len(), 2, "fetch and xhr over HTTP/3: {skipped:?}");
    assert!(skipped[0].starts_with("fetch over HTTP/3 (WebKitGTK's network stack, libsoup, has no HTTP/3"));
    let chromium = Side { engine: Some(Engine::Chromium), ..browser().remove(0) };
    let input = r.parse(&PAGE, &[chromium]).unwrap();
    assert_eq!(input.matrices[0].cases().0.len(), 4, "Chromium speaks both");
    (r.http, r.target) = ("3".into(), String::new());
    let tls = FrontEnd { own_server: Some(true), ..CLI };
    let e = r.parse(&tls, &[webkit(browser().remove(0))]).unwrap_err().message;
    assert!(e.starts_with("no webkit case can run: fetch over HTTP/3 (WebKitGTK's"), "{e}");
    assert!(e.ends_with("; add a version webkit speaks to --http or leave it out of --browser"), "{e}");
}

#[test]
fn a_side_with_no_case_is_refused_with_what_was_left_out() {
    let mut r = raw();
    (r.target, r.http, r.mode, r.concurrency) = ("https://h/".into(), "2".into(), "fresh".into(), "8".into());
    let e = r.parse(&PAGE, &browser()).unwrap_err().message;
    assert!(e.starts_with("no browser case can run: fetch/fresh over HTTP/2 at concurrency 8 ("), "{e}");
    assert!(e.ends_with("; add mode reuse or a level of 1 to requests in flight"), "{e}");
    let sides = [side(EnvironmentKind::Native, &["curl"]), browser().remove(0)];
    let e = r.parse(&CLI, &sides).unwrap_err().message;
    assert!(
        e.starts_with("no browser case can run") && e.ends_with("add --mode reuse or a level of 1 to -c/--concurrency"),
        "{e}"
    );
    r.concurrency = "1,8".into();
    assert!(r.parse(&CLI, &sides).is_ok(), "the browser runs at 1 in flight");
}

#[test]
fn limits_are_every_sides_environments_and_one_case_has_nothing_to_interleave_with() {
    let mut r = raw();
    (r.target, r.count, r.mode) = (String::new(), "2000000".into(), "reuse".into());
    let native = [side(EnvironmentKind::Native, &["curl"])];
    let input = r.parse(&CLI, &native).unwrap();
    assert!(!input.plan.interleave, "one case alone");
    let turns = FrontEnd { takes_turns: true, ..CLI };
    assert!(r.parse(&turns, &native).unwrap().plan.interleave, "a pass is one round of every side");
    let both = [native[0].clone(), browser().remove(0)];
    let e = r.parse(&CLI, &both).unwrap_err().message;
    assert_eq!(e, "-n/--count 2000000 is out of range: give 1 to 1000000 (the browser page's limit, for --browser)");
}

#[test]
fn a_link_sets_values_over_the_defaults() {
    let mut link = RawPlan::<Option<String>>::default();
    (link.count, link.http) = (Some("7".into()), Some("2".into()));
    link.targets = vec![(HttpVersion::Http11, "https://h:2/".into())];
    let r = link.over(raw());
    assert_eq!((r.count.as_str(), r.http.as_str(), r.warmup.as_str()), ("7", "2", "20"));
    assert_eq!(r.targets, link.targets);
    assert_eq!(RawPlan::<Option<String>>::default().over(raw()), raw());
}

#[test]
fn a_client_list_is_read_by_the_names_a_front_end_has() {
    let s = Side::listed(EnvironmentKind::Browser, "xhr,all", &["fetch", "xhr"], Field::Clients, Spelling::Page);
    assert_eq!(s.unwrap().clients, ["xhr", "fetch"]);
    let e = Side::listed(EnvironmentKind::Browser, "curl", &["fetch"], Field::BrowserClients, Spelling::Cli);
    assert!(e.unwrap_err().message.starts_with("--browser-clients: unknown client 'curl'"));
}

#[test]
fn a_form_gets_every_wrong_field_at_once_each_named() {
    let check = |r: &RawPlan| r.parse(&PAGE, &browser());
    let mut r = raw();
    (r.target, r.count, r.rounds, r.timeout) = ("ftp://x".into(), "many".into(), "0".into(), "soon".into());
    let errors = r.errors(&raw(), check);
    let fields: Vec<Option<Field>> = errors.iter().map(|e| e.field).collect();
    assert_eq!(fields, [Some(Field::Target), Some(Field::Timeout), Some(Field::Count), Some(Field::Rounds)]);
    assert!(errors[0].message.starts_with("target: 'ftp://x'"), "{}", errors[0].message);
    assert!(errors[3].message.starts_with("rounds 0 is out of range"), "{}", errors[3].message);
    assert!(raw().errors(&raw(), check).is_empty(), "a good plan has none");
    // A rule between fields is said once, and stops there: its fields' defaults may not mend it.
    let mut r = raw();
    (r.count, r.rounds) = ("3".into(), "4".into());
    let errors = r.errors(&raw(), check);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].field, Some(Field::Count));
    assert!(errors[0].message.contains("count 3 is fewer than rounds 4"), "{}", errors[0].message);
}
