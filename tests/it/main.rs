//! The integration tests, one binary: each file in this folder is a module (one `mod` line
//! below per file), so the crate and its dependencies are linked once, not once per file.
//! A new suite `tests/it/<name>.rs` adds `mod <name>;` here; run it alone with
//! `cargo test --test it <name>::`.
//!
//! Only a test that needs a process of its own stays a separate binary in tests/, with the
//! reason at its top: tests/secrets.rs installs a global tracing subscriber at debug level.

mod support;

mod a2s;
mod a2s_early_end;
mod api;
mod architecture;
mod arkrcon;
mod armagetron;
mod ase;
mod assettocorsa;
mod battlefield;
mod bedrock;
mod buildandshoot;
mod bzflag;
mod cli;
mod config_include;
mod console_budget;
mod cs2d;
mod cube2;
mod daemon;
mod daemon_demo;
mod doom3;
mod eco;
mod eldewrito;
mod farmingsimulator;
mod ffow;
mod fivem;
mod flood;
mod games;
mod gamespy1;
mod gamespy2;
mod gamespy3;
mod grafana;
mod hexen2;
mod hostile;
mod http_daemon;
mod http_hostile;
mod hytale;
mod jc2mp;
mod kspdmp;
mod log_colours;
mod mafia2mp;
mod mcquery;
mod minecraft;
mod minecraft_strict_handshake;
mod mumble;
mod nadeo;
mod netquake;
mod openttd;
mod palworld;
mod players;
mod probe_debug;
mod probe_module;
mod protocol_checklist;
mod proxy_protocol;
mod quake3_sim;
mod rcon;
mod readme_ci;
mod rfactor;
mod safety;
mod samp;
mod satisfactory;
mod savage2;
mod scrape_stream;
mod sdtd_health;
mod server_text;
mod shard;
mod soldat;
mod source_health;
mod starmade;
mod starsiege;
mod stated_numbers;
mod teamspeak2;
mod teamspeak3;
mod teeworlds;
mod terraria;
mod tribes1;
mod unreal2;
mod vcmp;
mod ventrilo;
mod web;
mod webrcon_health;
