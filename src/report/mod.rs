//! Human- and machine-readable renderings of programs and results.

pub mod catalog;
pub mod cfg_text;
pub mod correlate;
pub mod explain;
pub mod html_report;
pub mod plot;
pub mod repro;
pub mod repro_awg;
pub mod repro_baws;
pub mod repro_csv;
pub mod repro_latency;
pub mod repro_target;
pub mod summary;
pub mod timeline_svg;
