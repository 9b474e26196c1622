//! Server list ping 1.7+: handshake, status and ping packets, VarInt framed.
