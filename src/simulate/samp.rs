//! Simulated server for `samp`: TODO.

/// Placeholder until the simulator branch lands: the merge takes the real one.
pub async fn spawn_demo(_world: super::World) -> std::io::Result<super::SimServer> {
    Err(std::io::Error::other("not implemented"))
}
