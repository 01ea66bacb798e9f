//! Links the addon as Node expects (on macOS, N-API symbols are left to
//! be found in the loading process).
fn main() {
    napi_build::setup();
}
