//! Sans-IO codecs and exchanges for every supported query protocol, one folder each.
//!
//! This module contains no networking code, reads no clock and never imports tokio: every
//! codec function maps bytes to values (`decode_*`) or values to bytes (`encode_*`), and each
//! protocol's `exchange` is a state machine ([`exchange::Exchange`]) that the caller tells
//! `now`, feeds with what arrived and asks what to send next. Sockets, the clock and the
//! driver's resends belong to the daemon (`query` and `net`).
//!
//! Every byte handed to a decoder is hostile: lengths are checked against what arrived, counts
//! and sizes are capped before anything is allocated, and a bad input is a [`DecodeError`],
//! never a panic.

pub mod a2s;
pub mod arkrcon;
pub mod armagetron;
pub mod ase;
pub mod assettocorsa;
pub mod battlefield;
pub mod bedrock;
pub mod buildandshoot;
pub mod bzflag;
pub mod credentials;
pub mod cs2d;
pub mod cube2;
pub mod doom3;
pub mod eco;
pub mod eldewrito;
mod error;
pub mod exchange;
pub mod factorio;
pub mod farmingsimulator;
pub mod ffow;
pub mod fivem;
pub mod gamespy1;
pub mod gamespy2;
pub mod gamespy3;
pub mod hexen2;
pub mod http;
pub mod hytale;
pub mod jc2mp;
pub mod keyvalue;
pub mod kspdmp;
pub mod limits;
pub mod mafia2mp;
pub mod mafia2online;
pub mod memory;
pub mod minecraft;
pub mod mumble;
pub mod nadeo;
pub mod netquake;
pub mod openttd;
pub mod palworld;
pub mod proxy_header;
pub mod quake1;
pub mod quake2;
pub mod quake3;
pub mod rcon;
mod reader;
pub mod rfactor;
pub mod samp;
pub mod satisfactory;
pub mod savage2;
pub mod sdtd;
pub mod soldat;
pub mod spec;
pub mod starmade;
pub mod teamspeak2;
pub mod teamspeak3;
pub mod teeworlds;
pub mod terraria;
pub mod tribes1;
pub mod unreal2;
pub mod vcmp;
pub mod ventrilo;
pub mod webrcon;

pub use error::DecodeError;
pub use reader::Reader;
