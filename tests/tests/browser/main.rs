//! Every real-browser test, in one binary: one link step for all of them, and one
//! chromedriver (`lab_tests::browser`) whose sessions each start a fresh Chromium. Run one
//! page's tests with `cargo test --release -p lab-tests --test browser -- dcqcn_page::`.

mod accessibility;
mod app_shell;
mod dcqcn_page;
mod fabric_lab_page;
mod flows_page;
mod live_fleet;
mod live_hosted;
mod live_page;
mod lossless_page;
mod nccl_log_page;
mod nccl_page;
mod qp_page;
mod reference;
mod roce_capture;
mod roce_page;
mod search;
mod static_host;
mod topology_page;
mod training_page;
