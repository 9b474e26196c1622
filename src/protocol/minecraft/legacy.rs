//! Legacy server list ping (1.6 `FE 01 FA`, 1.4-1.5 `FE 01`, beta 1.8-1.3 `FE`).
