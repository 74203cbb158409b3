//! Shell completions and the man page, generated from the same clap definitions as the arguments: the bash
//! script loads in a real bash and completes a flag of `run`, every shell's script is made, an unknown shell is
//! refused naming the ones there are, and the man page renders with `man`.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::support::cli::run;

/// `httpbench completions SHELL`'s script.
fn script(shell: &str) -> String {
    let (code, out, err) = run(&["completions", shell]);
    assert_eq!(code, 0, "{shell}: {err}");
    out
}

/// Run `program args` with `input` on stdin; its exit status and stdout.
fn piped(program: &str, args: &[&str], input: &str) -> (bool, String) {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn bash_completes_a_flag_of_run_from_the_generated_script() {
    // As bash's `complete -F` calls it: the command, the word being completed, the word before it.
    let ask = "COMP_WORDS=(httpbench run --brow); COMP_CWORD=2; _httpbench httpbench --brow run; \
               printf '%s\\n' \"${COMPREPLY[@]}\"";
    let (ok, out) = piped("bash", &["-s"], &format!("{}\n{ask}\n", script("bash")));
    assert!(ok, "bash loaded the script: {out}");
    let words: Vec<&str> = out.lines().collect();
    assert!(words.contains(&"--browser") && words.contains(&"--browser-clients"), "{words:?}");
    assert!(words.iter().all(|w| w.starts_with("--brow")), "only what completes --brow: {words:?}");
}

#[test]
fn every_shells_script_is_made_and_an_unknown_shell_is_named() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let text = script(shell);
        assert!(text.contains("httpbench") && text.contains("compare") && text.contains("--browser"), "{shell}");
    }
    let (code, out, err) = run(&["completions", "tcsh"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty() && err.contains("tcsh") && err.contains("bash"), "{err}");
}

#[test]
fn the_man_page_renders_with_man() {
    let (code, roff, err) = run(&["man"]);
    assert_eq!(code, 0, "{err}");
    assert!(roff.starts_with(".ie") || roff.contains(".TH httpbench"), "roff: {}", &roff[..roff.len().min(200)]);
    // man-db renders a page from stdin; the page names the commands and their flags.
    let (ok, text) = piped("man", &["-l", "-P", "cat", "-"], &roff);
    assert!(ok, "man rendered it");
    for word in ["httpbench", "completions", "compare", "serve"] {
        assert!(text.contains(word), "{word} missing from the rendered page:\n{text}");
    }
}
