//! Minecraft Query (GameSpy4): handshake, basic and full stat.
