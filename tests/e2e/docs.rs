//! The README and the guide under `docs/` link to each other and to files of the repository: every relative
//! link must reach a file that is there, and every `#anchor` a heading of its page (GitHub's slugs), so the
//! documentation cannot point into nothing after a page moves.

use std::path::{Path, PathBuf};

use crate::support::root;

/// README.md and every Markdown page under docs/.
pub(crate) fn pages() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    let mut dirs = vec![root().join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    out
}

/// The targets of the inline links `[text](target)` of `markdown`, outside code.
fn links(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced {
            continue;
        }
        // Inline code spans may hold `](` of their own: drop them.
        let text: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, spaces to `-`, everything but letters, digits, `-` and `_` gone.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of the headings of the page at `path`.
fn anchors(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().filter_map(|l| l.strip_prefix('#')).map(|h| slug(h.trim_start_matches('#'))).collect()
}

#[test]
fn every_link_of_the_readme_and_the_guide_reaches_a_file_and_a_heading() {
    let pages = pages();
    assert!(pages.len() >= 10, "the README and the guide's pages: {pages:?}");
    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for link in links(&text) {
            if link.starts_with("http://") || link.starts_with("https://") || link.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = link.split_once('#').map_or((link.as_str(), None), |(f, a)| (f, Some(a)));
            let target = if file.is_empty() { page.clone() } else { page.parent().unwrap().join(file) };
            if !target.exists() {
                broken.push(format!("{}: {link}: no such file", page.display()));
            } else if let Some(anchor) = anchor.filter(|_| target.extension().is_some_and(|e| e == "md")) {
                if !anchors(&target).contains(&anchor.to_string()) {
                    broken.push(format!("{}: {link}: no such heading", page.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn the_checker_finds_a_broken_link_and_reads_github_s_anchors() {
    assert_eq!(links("see [a](x.md#y) and `[b](not-a-link)`\n```\n[c](code)\n```\n[d](../z)"), ["x.md#y", "../z"]);
    assert_eq!(slug(" Chromium, Firefox and WebKit in one report"), "chromium-firefox-and-webkit-in-one-report");
    assert_eq!(slug("The `run --browser` page"), "the-run---browser-page");
}

/// Every page of the guide is reachable from the README, through the guide's index at most.
#[test]
fn every_page_of_the_guide_is_linked_from_the_readme_or_the_index() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let index = std::fs::read_to_string(root().join("docs/README.md")).unwrap();
    let linked: Vec<String> =
        links(&readme).into_iter().chain(links(&index).into_iter().map(|l| format!("docs/{l}"))).collect();
    for page in pages().iter().filter(|p| p.starts_with(root().join("docs"))) {
        let rel = page.strip_prefix(root()).unwrap().to_str().unwrap().to_string();
        assert!(linked.iter().any(|l| l == &rel), "{rel} is linked from nowhere: {linked:?}");
    }
}
