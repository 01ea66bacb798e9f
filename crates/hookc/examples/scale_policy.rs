//! Prints the generated scale policy of the benches
//! (`benches/common/mod.rs`, `scale_policy(N)`), for profiling outside
//! criterion: `cargo run --release -p hookc --example scale_policy 10000`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../benches/common/mod.rs"]
mod common;

fn main() {
    let n = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    print!("{}", common::scale_policy(n));
}
