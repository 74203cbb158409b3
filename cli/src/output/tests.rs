//! Writing files: whole files replaced atomically, links written through, and what is not a regular file
//! written into or refused, never replaced. FIFOs with and without a reader and devices are tested end to end
//! (tests/e2e/exports.rs) with a real reader process.

use std::io::{Read, Seek};
use std::os::unix::fs::FileTypeExt;

use super::*;

fn leftovers(dir: &Path) -> usize {
    std::fs::read_dir(dir).unwrap().count()
}

#[test]
fn writes_whole_files_and_names_bad_paths() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    write_atomic(&path, "{}\n").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
    assert_eq!(leftovers(dir.path()), 1, "no temporary file is left behind");
    let bad = dir.path().join("missing/r.json");
    let e = write_atomic(&bad, "{}").unwrap_err();
    assert!(format!("{e:#}").contains("missing/r.json"), "{e:#}");
}

#[test]
fn a_link_to_a_file_is_written_through_and_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let (target, link) = (dir.path().join("real.json"), dir.path().join("link.json"));
    std::fs::write(&target, "old").unwrap();
    // A relative link, resolved from the link's own folder.
    std::os::unix::fs::symlink("real.json", &link).unwrap();
    write_atomic(&link, "new").unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
    assert_eq!(leftovers(dir.path()), 2, "the link and its file, no temporary file");
    // A link to nothing yet creates its file, as a shell redirection would.
    let (ahead, dangling) = (dir.path().join("later.json"), dir.path().join("dangling.json"));
    std::os::unix::fs::symlink(&ahead, &dangling).unwrap();
    write_atomic(&dangling, "made").unwrap();
    assert_eq!(std::fs::read_to_string(&ahead).unwrap(), "made");
    assert!(std::fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
}

#[test]
fn a_folder_and_a_loop_of_links_are_refused_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let e = format!("{:#}", write_atomic(dir.path(), "x").unwrap_err());
    assert!(e.contains(&dir.path().display().to_string()) && e.contains("it is a directory"), "{e}");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    let e = format!("{:#}", write_atomic(&a, "x").unwrap_err());
    assert!(e.contains("symbolic links in a row"), "{e}");
    assert!(std::fs::symlink_metadata(&a).unwrap().file_type().is_symlink(), "the link is still there");
}

#[test]
fn an_open_file_named_in_proc_is_appended_to_not_replaced() {
    // What `--export-json /dev/stdout > out.json` does: the report already printed stays, the export follows.
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(b"report\n").unwrap();
    let fd = file.as_raw_fd();
    write_atomic(Path::new(&format!("/proc/self/fd/{fd}")), "export\n").unwrap();
    let mut text = String::new();
    file.rewind().unwrap();
    file.read_to_string(&mut text).unwrap();
    assert_eq!(text, "report\nexport\n");
    let kind = std::fs::symlink_metadata(format!("/proc/self/fd/{fd}")).unwrap().file_type();
    assert!(kind.is_symlink() && !kind.is_fifo(), "still the process's link to its file");
}

#[test]
fn a_fifo_is_written_into_while_a_reader_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("p");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo with a valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    // More than a pipe holds (64 KiB): the writer waits for the reader to make room, and it does.
    let text = "x".repeat(300_000);
    write_atomic(&fifo, &text).unwrap();
    assert_eq!(reader.join().unwrap().len(), text.len());
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO is still a FIFO");
}
