//! The game presets, one row per game.
//!
//! Sources, as named in each row's `source`:
//! - **gamedig**: the games list of the `gamedig` npm package 5.3.3 (`lib/games.js`: `port`,
//!   `port_query`, `port_query_offset`, `protocol`, `old_id`) and its `GAMES_LIST.md` notes.
//! - **LinuxGSM**: the LinuxGSM game-server catalogue (`lgsm/data/serverlist.csv`), its
//!   default configs (`lgsm/config-default/config-lgsm/*server/_default.cfg`) and how it
//!   derives query ports (`lgsm/modules/info_game.sh`), commit 80350f3 (2025-11-08).
//!
//! The choice of games: those both catalogues carry (LinuxGSM's list is what self-hosters and
//! small hosts install) plus gamedig's most-queried survival titles, limited to protocols this
//! exporter speaks. Where the two sources disagree on a port the row says which it follows
//! and why in `notes`.
//!
//! Adding a game is one row. A game on a protocol that is not here yet gets its row when that
//! protocol's `Protocol` variant lands. The Quake 3 engine games take gamedig 5.3.3's ids and
//! ports (LinuxGSM agrees where it carries the game). Teeworlds is LinuxGSM's alone
//! (`twserver`, query port = `sv_port`): gamedig 5.3.3 lists it as not supported.

use super::{Game, Quirks};
use crate::target::Protocol::{
    self, A2s, Fivem, Minecraft, MinecraftBedrock, MinecraftQuery, Mumble, Quake3, Samp,
    Satisfactory, Teamspeak3, Teeworlds,
};

const N: Quirks = Quirks::NONE;
const G: &str = "gamedig";
const GL: &str = "gamedig, LinuxGSM";

#[allow(clippy::too_many_arguments)]
const fn game(
    id: &'static str,
    aliases: &'static [&'static str],
    name: &'static str,
    protocol: Protocol,
    game_port: u16,
    query_port: u16,
    quirks: Quirks,
    source: &'static str,
    notes: &'static str,
) -> Game {
    Game {
        id,
        aliases,
        name,
        protocol,
        also: &[],
        game_port,
        query_port,
        quirks,
        source,
        notes,
    }
}

/// Every preset, in the order `games` lists them (by name).
#[rustfmt::skip]
pub static GAMES: &[Game] = &[
    game("sdtd", &["7d2d"], "7 Days to Die", A2s, 26900, 26900, N, "LinuxGSM, gamedig", "Follows LinuxGSM (query port = game port); gamedig tries game port + 1. No player names without telnet"),
    game("ase", &["arkse"], "ARK: Survival Evolved", A2s, 7777, 27015, N, GL, "QueryPort is separate from the game port"),
    game("arma3", &[], "ARMA 3", A2s, 2302, 2303, N, GL, "Query port = game port + 1"),
    game("armareforger", &["armare"], "ARMA: Reforger", A2s, 2001, 17777, N.no_players(), G, "A2S must be enabled in the server config (a2s section); sends no player list"),
    game("barotrauma", &[], "Barotrauma", A2s, 27015, 27016, N, G, "Query port = game port + 1"),
    game("blackmesa", &[], "Black Mesa", A2s, 27015, 27015, N, GL, ""),
    game("cod", &[], "Call of Duty", Quake3, 28960, 28960, N, GL, "Quake 3 engine: getstatus on the game port"),
    game("cod2", &[], "Call of Duty 2", Quake3, 28960, 28960, N, GL, "Quake 3 engine: getstatus on the game port"),
    game("cod4mw", &["cod4"], "Call of Duty 4: Modern Warfare", Quake3, 28960, 28960, N, GL, "Quake 3 engine: getstatus on the game port"),
    game("coduo", &[], "Call of Duty: United Offensive", Quake3, 28960, 28960, N, GL, "Quake 3 engine: getstatus on the game port"),
    game("codwaw", &[], "Call of Duty: World at War", Quake3, 28960, 28960, N, GL, "Quake 3 engine: getstatus on the game port"),
    game("conanexiles", &[], "Conan Exiles", A2s, 7777, 27015, N.no_players(), G, "Never answers the player query (gamedig notes), so it is not sent"),
    game("counterstrike16", &["cs16"], "Counter-Strike 1.6", A2s, 27015, 27015, N, GL, "GoldSrc"),
    game("counterstrike2", &["cs2"], "Counter-Strike 2", A2s, 27015, 27015, N, GL, "Player list without names unless a plugin adds them"),
    game("csgo", &[], "Counter-Strike: Global Offensive", A2s, 27015, 27015, N, GL, "Full player list only with host_players_show 2"),
    game("css", &[], "Counter-Strike: Source", A2s, 27015, 27015, N, GL, ""),
    game("dods", &[], "Day of Defeat: Source", A2s, 27015, 27015, N, GL, ""),
    game("dayofdragons", &[], "Day of Dragons", A2s, 7777, 27015, N, GL, ""),
    game("doi", &[], "Day of Infamy", A2s, 27015, 27015, N, GL, ""),
    game("dayz", &[], "DayZ", A2s, 2302, 27016, N, GL, "steamQueryPort (27016), not the game port; player list without names"),
    game("dst", &[], "Don't Starve Together", A2s, 10999, 27016, N, G, ""),
    game("egs", &["empyrion"], "Empyrion - Galactic Survival", A2s, 30000, 30001, N, G, "Query port = game port + 1"),
    game("enshrouded", &[], "Enshrouded", A2s, 15636, 15637, N, G, "Query port = game port + 1"),
    game("ets2", &[], "Euro Truck Simulator 2", A2s, 27015, 27016, N, GL, "query_dedicated_port, default game port + 1"),
    game("fof", &[], "Fistful of Frags", A2s, 27015, 27015, N, GL, ""),
    game("garrysmod", &[], "Garry's Mod", A2s, 27015, 27015, N, GL, ""),
    game("fivem", &["gta5f"], "Grand Theft Auto V - FiveM", Fivem, 30120, 30120, N, G, "Cfx.re getinfo on the game port (UDP); counts from clients, no player list; getinfo is rate-limited per address (about 2/s), polls keep 600 ms apart"),
    game("hl2d", &["hl2dm"], "Half-Life 2: Deathmatch", A2s, 27015, 27015, N, GL, ""),
    game("hurtworld", &[], "Hurtworld", A2s, 12871, 12881, N, GL, ""),
    game("insurgency", &[], "Insurgency", A2s, 27015, 27015, N, GL, ""),
    game("insurgencysandstorm", &[], "Insurgency: Sandstorm", A2s, 27102, 27131, N, "LinuxGSM, gamedig", "Follows LinuxGSM's defaults (Port 27102, QueryPort 27131); gamedig assumes 27015 + 1"),
    game("killingfloor2", &[], "Killing Floor 2", A2s, 7777, 27015, N, GL, ""),
    game("l4d", &["left4dead"], "Left 4 Dead", A2s, 27015, 27015, N, GL, ""),
    game("l4d2", &["left4dead2"], "Left 4 Dead 2", A2s, 27015, 27015, N, GL, ""),
    game("mbe", &["minecraftbe"], "Minecraft: Bedrock Edition", MinecraftBedrock, 19132, 19132, N, G, "RakNet ping on the game port (server-port in server.properties); in the LinuxGSM catalogue as mcbserver"),
    Game {
        id: "minecraft", aliases: &[], name: "Minecraft: Java Edition", protocol: Minecraft,
        also: &[MinecraftQuery], game_port: 25565, query_port: 25565, quirks: N, source: GL,
        notes: "Without a port the _minecraft._tcp SRV record is tried first; minecraft-query needs enable-query=true",
    },
    game("mordhau", &[], "Mordhau", A2s, 7777, 27015, N, GL, ""),
    game("mumble", &[], "Mumble", Mumble, 64738, 64738, N, G, "The UDP ping on the voice port (gamedig's mumbleping); no server name in the protocol; in the LinuxGSM catalogue as mumbleserver"),
    game("naturalselection2", &["ns2"], "Natural Selection 2", A2s, 27015, 27016, N, GL, "Query port = game port + 1"),
    game("nmrih", &[], "No More Room in Hell", A2s, 27015, 27015, N, GL, ""),
    game("gtasao", &["saomp"], "open.mp (San Andreas)", Samp, 7777, 7777, N, G, "Answers the SA:MP query"),
    game("openarena", &[], "OpenArena", Quake3, 27960, 27960, N, G, "ioquake3; max is sv_maxclients minus sv_privateClients. Tested against Debian's openarena-server 0.8.8"),
    game("pixark", &[], "PixARK", A2s, 7777, 27015, N, G, ""),
    game("projectzomboid", &["przomboid"], "Project Zomboid", A2s, 16261, 16261, N, GL, ""),
    game("q3a", &["quake3"], "Quake III Arena", Quake3, 27960, 27960, N, GL, "ioquake3 answers a burst of 10 requests, then one per second per address"),
    game("quakelive", &[], "Quake Live", A2s, 27960, 27960, N, GL, "Answers A2S, not the Quake 3 protocol"),
    game("redm", &["rdr2r"], "Red Dead Redemption 2 - RedM", Fivem, 30120, 30120, N, G, "Cfx.re server, the FiveM protocol"),
    game("rtcw", &[], "Return to Castle Wolfenstein", Quake3, 27960, 27960, N, GL, "Quake 3 engine"),
    game("ror2", &[], "Risk of Rain 2", A2s, 27015, 27016, N, G, "Query port = game port + 1"),
    game("rust", &[], "Rust", A2s, 28015, 28015, N.counts_in_keywords(), "gamedig, LinuxGSM", "True counts and queue in keywords (cp, mp, qp); with +server.queryport set (LinuxGSM: 28017) put that port in the address"),
    game("gtasam", &["samp"], "San Andreas Multiplayer (SA:MP)", Samp, 7777, 7777, N, GL, "Legacy code-page strings: set encoding"),
    game("satisfactory", &[], "Satisfactory", Satisfactory, 7777, 7777, N.no_players(), G, "Lightweight Query (UDP, game port): up, name, build and the server state (idle/loading/playing, as rules); no counts without the HTTPS API"),
    game("sof2", &[], "Soldier of Fortune II", Quake3, 20100, 20100, N, G, "Quake 3 engine"),
    game("sotf", &["sonsoftheforest"], "Sons Of The Forest", A2s, 8766, 27016, N, G, ""),
    game("soulmask", &[], "Soulmask", A2s, 8777, 27015, N, G, "Reports version 1.0.0.0 in the info reply; the real one is in the rules (NO_s)"),
    game("spaceengineers", &[], "Space Engineers", A2s, 27015, 27015, N, G, ""),
    game("swjk2jo", &["swjk2"], "Star Wars Jedi Knight II: Jedi Outcast", Quake3, 28070, 28070, N, G, "Quake 3 engine"),
    game("swjkja", &["swjk"], "Star Wars Jedi Knight: Jedi Academy", Quake3, 29070, 29070, N, G, "Quake 3 engine"),
    game("starbound", &[], "Starbound", A2s, 21025, 21025, N, GL, ""),
    game("svencoop", &[], "Sven Co-op", A2s, 27015, 27015, N, GL, "GoldSrc"),
    game("teamfortress2", &["tf2"], "Team Fortress 2", A2s, 27015, 27015, N, GL, ""),
    game("tfc", &[], "Team Fortress Classic", A2s, 27015, 27015, N, GL, "GoldSrc"),
    game("teamspeak3", &["ts3"], "TeamSpeak 3", Teamspeak3, 9987, 10011, N, G, "ServerQuery (TCP 10011); the voice port selects the virtual server (voice_port, default 9987); online excludes query clients; at most 4 commands per poll and polls 2 s apart, below the 10-in-3-s flood ban"),
    game("teeworlds", &[], "Teeworlds", Teeworlds, 8303, 8303, N, "LinuxGSM", "Also DDNet and its mods; query port = sv_port. A 0.7 server is found after a 500 ms fallback, then asked first"),
    game("theforest", &["forrest"], "The Forest", A2s, 27015, 27016, N, G, "Query port = game port + 1"),
    game("theisle", &["isle"], "The Isle", A2s, 7707, 7708, N, G, "Query port = game port + 1"),
    game("unturned", &[], "Unturned", A2s, 27015, 27016, N, "gamedig, LinuxGSM", "Follows gamedig (game port + 1); LinuxGSM queries the game port"),
    game("urbanterror", &[], "Urban Terror", Quake3, 27960, 27960, N, G, "ioquake3-based"),
    game("valheim", &[], "Valheim", A2s, 2456, 2457, N, GL, "Query port = game port + 1; answers only when started with -public 1; crossplay servers report 0 players"),
    game("wet", &["wolfensteinet"], "Wolfenstein: Enemy Territory", Quake3, 27960, 27960, N, GL, "Quake 3 engine"),
    game("wurmunlimited", &["wurm"], "Wurm Unlimited", A2s, 3724, 27016, N, GL, ""),
    game("zps", &[], "Zombie Panic! Source", A2s, 27015, 27015, N, GL, ""),
];
