//! What the network did, as the rest of the daemon names it. The type itself is the
//! runtime-free [`crate::protocol::exchange::LinkError`], so exchanges (which never touch a
//! socket) can react to it; its `From<io::Error>` lives with it.

pub use crate::protocol::exchange::LinkError as NetError;
