//! Files the tool reads that fight back (issue 29): special files where a file is expected (`/dev/zero`,
//! `/dev/urandom`, a FIFO, a directory), result files of more cases than a report shows, names no client
//! has, and text meant for the terminal (escape sequences) or for a spreadsheet (formulas). Each is refused
//! at once with one line naming it, or shown defused, in bounded time and memory.

use std::time::Duration;

use serde_json::Value;

use crate::support::cli::{export_run, run, run_bounded, Bounded, SMALL_RAW};
use crate::support::{mkfifo, scratch};

/// Refused with exit 2 and one line that says `says`, within 10 s and 100 MiB.
fn assert_refused(b: &Bounded, args: &[&str], says: &[&str]) {
    assert_eq!(b.code, 2, "{args:?}: {}", b.err);
    assert!(says.iter().all(|s| b.err.contains(s)), "{args:?} should say {says:?}: {}", b.err);
    assert_eq!(b.err.trim_end().lines().count(), 1, "{args:?}: one line: {}", b.err);
    assert!(b.took < Duration::from_secs(10) && b.peak_mib < 100, "{args:?}: {:?}, {} MiB", b.took, b.peak_mib);
}

#[test]
fn special_files_are_refused_at_once_wherever_a_file_is_read() {
    let dir = scratch("special-files");
    let fifo = dir.join("pipe.json");
    mkfifo(&fifo);
    let (f, d) = (fifo.to_str().unwrap(), dir.to_str().unwrap());
    let device = "is a device, not a regular file";
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (vec!["compare", "/dev/zero"], vec!["/dev/zero", device]),
        (vec!["compare", "/dev/urandom"], vec!["/dev/urandom", device]),
        (vec!["compare", f], vec!["pipe.json", "is a FIFO (named pipe), not a regular file"]),
        (vec!["compare", d], vec!["is a directory, not a regular file"]),
        (vec!["share", "/dev/zero"], vec!["/dev/zero", device]),
        (vec!["run", "--cacert", "/dev/zero", "-n", "5"], vec!["--cacert /dev/zero", device]),
        (vec!["run", "--cacert", f, "-n", "5"], vec!["--cacert", "FIFO"]),
        (vec!["serve", "--tls", "--cert", "/dev/zero", "--key", "/dev/zero"], vec!["--cert /dev/zero", device]),
        (vec!["serve", "--tls", "--cert", f, "--key", f], vec!["--cert", "FIFO"]),
    ];
    for (args, says) in cases {
        assert_refused(&run_bounded(&args, 30), &args, &says);
    }
}

/// A result file made of one real case, repeated `n` times (labels stay distinct: they are numbered).
fn many_cases(dir: &std::path::Path, name: &str, n: usize) -> String {
    let one = dir.join("one.json");
    let mut v: Value = serde_json::from_str(&export_run(&one, &[&SMALL_RAW[..], &["--rounds", "1"]].concat())).unwrap();
    let case = v["cases"][0].clone();
    v["cases"] = Value::Array(vec![case; n]);
    let path = dir.join(name);
    std::fs::write(&path, v.to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn result_files_of_more_cases_than_a_report_shows_are_refused() {
    let dir = scratch("many-cases");
    // 55,000 cases once ran out of memory (9.7 GB) drawing their cmpthese chart; 2,000 took 1.4 s. They are
    // counted before they are read (35 MB of file, under the 64 MiB a result file may be).
    let huge = many_cases(&dir, "huge.json", 55_000);
    assert!(std::fs::metadata(&huge).unwrap().len() < 64 << 20);
    let args = ["compare", huge.as_str()];
    assert_refused(&run_bounded(&args, 60), &args, &["huge.json", "55000 cases, more than the 500 one report shows"]);
    // Two files of 300 each: fine alone, too many together.
    let a = many_cases(&dir, "a.json", 300);
    let b = many_cases(&dir, "b.json", 300);
    let alone = run_bounded(&["compare", a.as_str(), "--format", "csv"], 60);
    assert_eq!(alone.code, 0, "{}", alone.err);
    assert_eq!(alone.out.lines().count(), 301);
    let args = ["compare", a.as_str(), b.as_str()];
    assert_refused(&run_bounded(&args, 60), &args, &["600 cases, more than the 500 one report shows"]);
    // 500 cases, the most a report shows: its 500 x 500 chart is drawn in bounded time.
    let most = many_cases(&dir, "most.json", 500);
    let drawn = run_bounded(&["compare", most.as_str()], 60);
    assert_eq!(drawn.code, 0, "{}", drawn.err);
    assert!(drawn.took < Duration::from_secs(20) && drawn.peak_mib < 400, "{:?} {} MiB", drawn.took, drawn.peak_mib);
    // `run` refuses to make such a file in the first place.
    let (code, _, err) = run(&["-c", "1,2,3,4,5,6,7,8", "--body-size", "1,2,3,4,5,6,7,8", "--clients", "all"]);
    assert_eq!(code, 2, "{err}");
    // Every library in both modes at 8 levels of 8 sizes.
    let cases = crate::support::table::all_libraries().len() * 2 * 8 * 8;
    assert!(err.contains(&format!("{cases} cases")) && err.contains("more than the 500"), "{err}");
}

#[test]
fn a_name_no_client_has_is_refused_where_it_enters() {
    let dir = scratch("long-names");
    let good = dir.join("good.json");
    let mut v: Value = serde_json::from_str(&export_run(&good, &SMALL_RAW)).unwrap();
    // 74 KB of name once panicked the renderer (a format width above 65,535), from a file and from a link.
    v["cases"][0]["client"] = "x".repeat(74_000).into();
    let long = dir.join("long.json");
    std::fs::write(&long, v.to_string()).unwrap();
    let says = ["cannot name a client", "(74000 characters)"];
    let args = ["compare", long.to_str().unwrap()];
    assert_refused(&run_bounded(&args, 30), &args, &says);
    let link = httpbench_shared::protocol::share::encode("https://x.test/", &v.to_string());
    assert!(link.len() < 3000, "a short link: {}", link.len());
    let args = ["compare", link.as_str()];
    assert_refused(&run_bounded(&args, 30), &args, &says);
    // And before measuring, where a run's export would be lost.
    let cmd = format!("{}=python3 x.py", "n".repeat(70_000));
    let args = ["run", "--client-cmd", cmd.as_str(), "-n", "1"];
    assert_refused(&run_bounded(&args, 30), &args, &["--client-cmd", "cannot name a client"]);
}

#[test]
fn terminal_escapes_and_spreadsheet_formulas_from_a_file_are_defused() {
    let dir = scratch("escapes");
    let good = dir.join("good.json");
    let mut v: Value = serde_json::from_str(&export_run(&good, &SMALL_RAW)).unwrap();
    // A title change, a colour and an OSC 52 clipboard write, in a reason and in the tool's version.
    let hostile = "\u{1b}]0;owned\u{7}\u{1b}[31mred\u{1b}]52;c;aGk=\u{7}";
    v["cases"][0]["errors"] = serde_json::json!({"other": 1});
    v["cases"][0]["ok"] = (v["cases"][0]["ok"].as_u64().unwrap() - 1).into();
    v["cases"][0]["rounds"][0]["ok"] = (v["cases"][0]["rounds"][0]["ok"].as_u64().unwrap() - 1).into();
    let rate = v["cases"][0]["ok"].as_f64().unwrap() / v["cases"][0]["wall_secs"].as_f64().unwrap();
    v["cases"][0]["rate_wall"] = rate.into();
    v["cases"][0]["latency_ns"] = Value::Null;
    v["cases"][0]["error_reasons"] = serde_json::json!([format!("other: {hostile}")]);
    v["tool"]["version"] = hostile.into();
    // A file name is a tag in labels: a formula in a spreadsheet, an escape in a terminal.
    let (a, b) = (dir.join("=HYPERLINK(1)\u{1b}[2J.json"), dir.join("b.json"));
    std::fs::write(&a, v.to_string()).unwrap();
    // Another run (a report given twice counts once): started a millisecond later.
    let started = v["environment"]["started_unix_ms"].as_u64().unwrap();
    v["environment"]["started_unix_ms"] = (started + 1).into();
    std::fs::write(&b, v.to_string()).unwrap();
    for format in ["text", "markdown", "csv"] {
        let (code, out, err) = run(&["compare", a.to_str().unwrap(), b.to_str().unwrap(), "--format", format]);
        assert_eq!(code, 0, "{format}: {err}");
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{format}: raw escapes reached stdout: {out:?}");
        if format == "text" {
            assert!(out.contains(r"\x1b]0;owned\x07") && out.contains(r"\x1b[2J"), "{format}: shown escaped: {out}");
        } else if format == "markdown" {
            assert!(out.contains(r"\x1b[2J"), "{format}: shown escaped: {out}");
        } else {
            assert!(out.contains(r"'=HYPERLINK(1)\x1b[2J/raw"), "csv: a formula neutralised: {out}");
        }
    }
    // An error message quoting the file's name is escaped too.
    std::fs::write(&a, "{ not json").unwrap();
    let (code, _, err) = run(&["compare", a.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(!err.contains('\u{1b}') && err.contains(r"\x1b[2J"), "{err:?}");
}
