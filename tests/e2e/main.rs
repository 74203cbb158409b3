//! End-to-end tests: the real `httpbench` binary against real servers on 127.0.0.1 (its own embedded server,
//! servers written in the test, and Perl's seed script against `httpbench serve`). One test binary, a module
//! per area; what the areas share (the binary's runner, servers, the page's drivers) is in `support`.

mod browser_plan;
mod browser_run;
mod command;
mod compare;
mod completions;
mod concurrency;
mod doc_commands;
mod docs;
mod exports;
mod faults;
mod firefox;
mod firefox_page;
mod gate;
mod h3;
mod h3_hostile;
mod h3_peers;
mod history;
mod history_otava;
mod history_store;
mod hosted;
mod hostile_files;
mod html_report;
mod interleave;
mod link;
mod page;
mod perl_seed;
mod placement;
mod run;
mod runtimes;
mod schema;
mod sealed;
mod serve;
mod serve_origin;
mod share;
mod support;
mod tls;
mod tls_faults;
mod webkit;
