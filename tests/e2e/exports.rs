//! Exports never destroy what is at their path (issue 36): a FIFO is written into while a real reader process
//! reads it, and a FIFO nobody reads fails the export in bounded time; a device node is written into and
//! stays a device; a link to `/proc/self/fd/1` (what `/dev/stdout` is) reaches stdout; a link to a file is written through and stays a link; and a
//! run that needs no folder of its own runs with a TMPDIR nothing can be created in.

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use httpbench::process::KillOnDrop;
use serde_json::Value;

use crate::support::cli::{run, run_bounded, SMALL_RAW};
use crate::support::{mkfifo, scratch, wait_until};

/// A small run exporting its result file to `path`, stdout in CSV.
fn export_to(path: &std::path::Path) -> (i32, String, String) {
    run(&[&SMALL_RAW[..], &["--format", "csv", "--export-json", path.to_str().unwrap()]].concat())
}

fn is_result_file(text: &str) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|v| v["cases"][0]["ok"].as_u64() == Some(5))
}

#[test]
fn a_fifo_is_written_into_for_its_reader_and_stays_a_fifo() {
    let dir = scratch("export-fifo");
    let fifo = dir.join("result.json");
    mkfifo(&fifo);
    // A reader in a process of its own, started first, as `cat result.json | jq` would be. Killed when the
    // test ends, whatever happens: a FIFO replaced under it would leave it waiting for a writer forever.
    let mut reader = KillOnDrop::spawn(Command::new("cat").arg(&fifo).stdout(Stdio::piped())).unwrap();
    let mut out = reader.stdout.take().unwrap();
    let read = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = out.read_to_string(&mut text);
        text
    });
    let (code, _, err) = export_to(&fifo);
    assert_eq!(code, 0, "{err}");
    wait_until(
        "the reader to get the end",
        Duration::from_secs(10),
        || matches!(reader.try_wait(), Ok(Some(_))),
        || format!("is {} still a FIFO?", fifo.display()),
    );
    assert!(is_result_file(&read.join().unwrap()), "the reader got the result file");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "still a FIFO");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file beside it");
}

#[test]
fn a_fifo_nobody_reads_fails_the_export_in_bounded_time_and_the_report_is_printed() {
    let dir = scratch("export-fifo-alone");
    let fifo = dir.join("result.json");
    mkfifo(&fifo);
    let path = fifo.to_str().unwrap();
    let r = run_bounded(&[&SMALL_RAW[..], &["--export-json", path]].concat(), 60);
    assert_eq!(r.code, 1, "{}", r.err);
    assert!(r.took < Duration::from_secs(30), "bounded: {:?}", r.took);
    let says =
        format!("httpbench: error: cannot write {path}: it is a FIFO and nothing opened it for reading within 5 s");
    assert!(r.err.lines().any(|l| l.starts_with(&says)), "{}", r.err);
    assert!(r.out.contains("req/s") && r.out.contains("95% CI"), "the text report is printed: {}", r.out);
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "still a FIFO");
}

/// What `--export-json /dev/stdout` does: `/dev/stdout` is a link to `/proc/self/fd/1`. The test's own link
/// to it, in a folder of its own, goes the same way, and a regression replaces that link, not `/dev/stdout`
/// of the machine the test runs on (as root, it could).
#[test]
fn a_link_to_stdout_reaches_stdout_after_the_report() {
    let dir = scratch("export-stdout");
    let link = dir.join("stdout");
    std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
    let (code, out, err) = export_to(&link);
    assert_eq!(code, 0, "{err}");
    // stdout is a pipe here: the CSV report first, then the result file written into the same pipe.
    let json = out.find("{\n").map(|at| &out[at..]).unwrap_or_default();
    assert!(out.starts_with("case,") && is_result_file(json), "{out}");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is a link still");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file beside it");
}

#[test]
#[ignore = "needs root, to mknod a null device in a temporary folder (CI runs as root; scripts/test.sh runs it)"]
fn a_device_node_is_written_into_and_stays_a_device() {
    let dir = scratch("export-device");
    let null = dir.join("null");
    let c = std::ffi::CString::new(null.to_str().unwrap()).unwrap();
    // SAFETY: mknod of a character device 1:3 (what /dev/null is) at a path in the test's own folder.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    assert_eq!(made, 0, "mknod: {}", std::io::Error::last_os_error());
    // Through a link too: `/dev/stdout` and friends are links to what is written into.
    let link = dir.join("to-null");
    std::os::unix::fs::symlink(&null, &link).unwrap();
    for path in [&null, &link] {
        let (code, _, err) = export_to(path);
        assert_eq!(code, 0, "{}: {err}", path.display());
    }
    assert!(std::fs::symlink_metadata(&null).unwrap().file_type().is_char_device(), "still a device");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "still a link");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2, "no temporary file beside them");
}

#[test]
fn a_link_to_a_file_is_written_through_and_stays_a_link() {
    let dir = scratch("export-link");
    let (file, link) = (dir.join("kept.json"), dir.join("latest.json"));
    std::fs::write(&file, "yesterday's").unwrap();
    std::os::unix::fs::symlink("kept.json", &link).unwrap();
    let (code, _, err) = export_to(&link);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "still a link");
    assert!(is_result_file(&std::fs::read_to_string(&file).unwrap()), "the file it points to was written");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2, "no temporary file left");
}

#[test]
fn a_run_needs_no_tmpdir_when_it_has_no_browser() {
    // A TMPDIR nothing can be created in, even by root (a folder under a regular file), as a read-only or
    // full one: a run without --browser needs no folder there.
    let dir = scratch("export-tmpdir");
    std::fs::write(dir.join("file"), "").unwrap();
    let tmpdir = dir.join("file/tmp");
    let t = Instant::now();
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_httpbench"))
        .args(SMALL_RAW)
        .args(["--format", "json"])
        .env("TMPDIR", &tmpdir)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(is_result_file(&String::from_utf8_lossy(&out.stdout)), "{err}");
    assert!(t.elapsed() < Duration::from_secs(60));
}
