//! VarInt and VarInt-framed packets (at most 5 bytes a VarInt).
