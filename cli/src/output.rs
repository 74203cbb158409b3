//! Getting reports out: print to stdout, and write export files atomically (a temporary file in the same
//! directory, then a rename), so an export is complete or absent, never half written. Exports are created
//! with the user's umask (mode 0666 less the umask, 0644 usually), as `cp` or a shell redirection would make
//! them: a report is written to be published or attached, and a web server must be able to read it (the
//! temporary file's own default, 0600, is for secrets). What reaches the terminal has its control characters
//! escaped: labels and reasons in it may come from someone else's result file.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use httpbench_shared::render::escape_controls;
use std::os::unix::fs::PermissionsExt;

/// Print `text` on stdout, control characters escaped (JSON has none: serde escapes them).
pub fn print(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(escape_controls(text).as_bytes())?;
    out.flush()
}

/// Write `text` to `path` atomically.
pub fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".httpbench-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .with_context(|| format!("cannot write {}: cannot create a file in {}", path.display(), dir.display()))?;
    tmp.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    tmp.as_file().sync_all().with_context(|| format!("cannot write {}", path.display()))?;
    tmp.persist(path).map_err(|e| e.error).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Write each (path, text) with [`write_atomic`], control characters escaped as [`print`] does, saying on stderr why one could not be written; whether all
/// were. One failed file does not keep the others from being written.
pub fn write_all(files: &[(&Path, String)]) -> bool {
    let mut all = true;
    for (path, text) in files {
        // Exports are read in terminals too (`cat today.md`); JSON and HTML hold no raw control characters.
        if let Err(e) = write_atomic(path, &escape_controls(text)) {
            eprintln!("httpbench: error: {e:#}");
            all = false;
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_files_and_names_bad_paths() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        write_atomic(&path, "{}\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
        let bad = dir.path().join("missing/r.json");
        let e = write_atomic(&bad, "{}").unwrap_err();
        assert!(format!("{e:#}").contains("missing/r.json"), "{e:#}");
    }
}
