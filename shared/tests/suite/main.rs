//! The shared crate's integration tests, one binary (one link, one run): renderers by snapshot (the HTML
//! report too), Perl's output against Perl's own, warnings on both sides of every threshold, and property
//! tests that no input makes a parser or renderer panic.

#[cfg(not(target_arch = "wasm32"))]
mod fuzz;
mod gate;
mod html;
mod perl_golden;
mod render;
mod results;
mod warnings;
