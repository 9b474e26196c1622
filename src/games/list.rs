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
//! (`twserver`, query port = `sv_port`): gamedig 5.3.3 lists it as not supported. The
//! GameSpy 1 games are every game gamedig 5.3.3 polls with `gamespy1`: its ids, former ids
//! as aliases, and its query ports (`port_query`, else the game port plus
//! `port_query_offset`).

use super::{Game, Quirks};
use crate::target::Protocol::{
    self, A2s, Gamespy1, Minecraft, MinecraftBedrock, MinecraftQuery, Mumble, Quake3, Samp,
    Teeworlds,
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
    game("avp2", &[], "Aliens versus Predator 2", Gamespy1, 27888, 27888, N, G, "Query port = game port"),
    game("ase", &["arkse"], "ARK: Survival Evolved", A2s, 7777, 27015, N, GL, "QueryPort is separate from the game port"),
    game("arma3", &[], "ARMA 3", A2s, 2302, 2303, N, GL, "Query port = game port + 1"),
    game("acwa", &["armacwa"], "ARMA: Cold War Assault", Gamespy1, 2302, 2303, N, G, "Query port = game port + 1"),
    game("armareforger", &["armare"], "ARMA: Reforger", A2s, 2001, 17777, N.no_players(), G, "A2S must be enabled in the server config (a2s section); sends no player list"),
    game("armaresistance", &["armar"], "ARMA: Resistance", Gamespy1, 2302, 2303, N, G, "Query port = game port + 1"),
    game("baldursgate", &[], "Baldur's Gate", Gamespy1, 6073, 1470, N, G, "Fixed query port"),
    game("barotrauma", &[], "Barotrauma", A2s, 27015, 27016, N, G, "Query port = game port + 1"),
    game("battlefield1942", &["bf1942"], "Battlefield 1942", Gamespy1, 14567, 23000, N, G, "Fixed query port. Lists players who left: numplayers is the count"),
    game("blackmesa", &[], "Black Mesa", A2s, 27015, 27015, N, GL, ""),
    game("cod", &[], "Call of Duty", Quake3, 28960, 28960, N, GL, "Quake 3 engine: getstatus on the game port"),
    game("cod2", &[], "Call of Duty 2", Quake3, 28960, 28960, N, GL, "Quake 3 engine: getstatus on the game port"),
    game("cod4mw", &["cod4"], "Call of Duty 4: Modern Warfare", Quake3, 28960, 28960, N, GL, "Quake 3 engine: getstatus on the game port"),
    game("coduo", &[], "Call of Duty: United Offensive", Quake3, 28960, 28960, N, GL, "Quake 3 engine: getstatus on the game port"),
    game("codwaw", &[], "Call of Duty: World at War", Quake3, 28960, 28960, N, GL, "Quake 3 engine: getstatus on the game port"),
    game("cbu", &[], "Clive Barker's Undying", Gamespy1, 7777, 7778, N, G, "Query port = game port + 1"),
    game("codenameeagle", &[], "Codename Eagle", Gamespy1, 4711, 4711, N, G, ""),
    game("cacr", &["cacrenegade"], "Command and Conquer: Renegade", Gamespy1, 4848, 25300, N, G, "Fixed query port"),
    game("c3db", &["commandos3"], "Commandos 3: Destination Berlin", Gamespy1, 6500, 6500, N, G, ""),
    game("conanexiles", &[], "Conan Exiles", A2s, 7777, 27015, N.no_players(), G, "Never answers the player query (gamedig notes), so it is not sent"),
    game("contractjack", &["contactjack"], "Contract J.A.C.K.", Gamespy1, 27888, 27888, N, G, ""),
    game("counterstrike16", &["cs16"], "Counter-Strike 1.6", A2s, 27015, 27015, N, GL, "GoldSrc"),
    game("counterstrike2", &["cs2"], "Counter-Strike 2", A2s, 27015, 27015, N, GL, "Player list without names unless a plugin adds them"),
    game("csgo", &[], "Counter-Strike: Global Offensive", A2s, 27015, 27015, N, GL, "Full player list only with host_players_show 2"),
    game("css", &[], "Counter-Strike: Source", A2s, 27015, 27015, N, GL, ""),
    game("dods", &[], "Day of Defeat: Source", A2s, 27015, 27015, N, GL, ""),
    game("dayofdragons", &[], "Day of Dragons", A2s, 7777, 27015, N, GL, ""),
    game("doi", &[], "Day of Infamy", A2s, 27015, 27015, N, GL, ""),
    game("dayz", &[], "DayZ", A2s, 2302, 27016, N, GL, "steamQueryPort (27016), not the game port; player list without names"),
    game("ddpt", &["deadlydozenpt"], "Deadly Dozen: Pacific Theater", Gamespy1, 25300, 25300, N, G, ""),
    game("descent3", &[], "Descent 3", Gamespy1, 2092, 20142, N, G, "Fixed query port"),
    game("deusex", &[], "Deus Ex", Gamespy1, 7791, 7792, N, G, "Query port = game port + 1"),
    game("dtr2", &["dirttrackracing2"], "Dirt Track Racing 2", Gamespy1, 32240, 32140, N, G, "Query port = game port - 100"),
    game("dst", &[], "Don't Starve Together", A2s, 10999, 27016, N, G, ""),
    game("dootf", &["drakan"], "Drakan: Order of the Flame", Gamespy1, 27045, 27046, N, G, "Query port = game port + 1"),
    game("dnf2001", &[], "Duke Nukem Forever 2001", Gamespy1, 7777, 7778, N, G, "Query port = game port + 1"),
    game("egs", &["empyrion"], "Empyrion - Galactic Survival", A2s, 30000, 30001, N, G, "Query port = game port + 1"),
    game("enshrouded", &[], "Enshrouded", A2s, 15636, 15637, N, G, "Query port = game port + 1"),
    game("ets2", &[], "Euro Truck Simulator 2", A2s, 27015, 27016, N, GL, "query_dedicated_port, default game port + 1"),
    game("f1c9902", &[], "F1 Challenge '99-'02", Gamespy1, 34397, 34397, N, G, ""),
    game("fof", &[], "Fistful of Frags", A2s, 27015, 27015, N, GL, ""),
    game("formulaone2002", &["f12002"], "Formula One 2002", Gamespy1, 3297, 3297, N, G, ""),
    game("garrysmod", &[], "Garry's Mod", A2s, 27015, 27015, N, GL, ""),
    game("gck", &["giantscitizenkabuto"], "Giants: Citizen Kabuto", Gamespy1, 8911, 8911, N, G, ""),
    game("globaloperations", &[], "Global Operations", Gamespy1, 28672, 28672, N, G, ""),
    game("gus", &["gore"], "Gore: Ultimate Soldier", Gamespy1, 27777, 27778, N, G, "Query port = game port + 1"),
    game("hl2d", &["hl2dm"], "Half-Life 2: Deathmatch", A2s, 27015, 27015, N, GL, ""),
    game("heretic2", &[], "Heretic II", Gamespy1, 27900, 27901, N, G, "Query port = game port + 1"),
    game("hiddendangerous2", &["had2"], "Hidden & Dangerous 2", Gamespy1, 11001, 11004, N, G, "Query port = game port + 3"),
    game("homeworld2", &[], "Homeworld 2", Gamespy1, 6500, 6500, N, G, ""),
    game("hurtworld", &[], "Hurtworld", A2s, 12871, 12881, N, GL, ""),
    game("i2cs", &["igi2"], "IGI 2: Covert Strike", Gamespy1, 26001, 26001, N, G, ""),
    game("i2s", &["il2"], "IL-2 Sturmovik", Gamespy1, 21000, 21000, N, G, ""),
    game("insurgency", &[], "Insurgency", A2s, 27015, 27015, N, GL, ""),
    game("insurgencysandstorm", &[], "Insurgency: Sandstorm", A2s, 27102, 27131, N, "LinuxGSM, gamedig", "Follows LinuxGSM's defaults (Port 27102, QueryPort 27131); gamedig assumes 27015 + 1"),
    game("ironstorm", &[], "Iron Storm", Gamespy1, 3505, 3505, N, G, ""),
    game("jb0n", &["jamesbondnightfire"], "James Bond 007: Nightfire", Gamespy1, 6550, 6550, N, G, ""),
    game("killingfloor2", &[], "Killing Floor 2", A2s, 7777, 27015, N, GL, ""),
    game("kloc", &["kingpin"], "Kingpin: Life of Crime", Gamespy1, 31510, 31500, N, G, "Query port = game port - 10"),
    game("kpctnc", &["kisspc"], "Kiss: Psycho Circus: The Nightmare Child", Gamespy1, 7777, 7778, N, G, "Query port = game port + 1"),
    game("l4d", &["left4dead"], "Left 4 Dead", A2s, 27015, 27015, N, GL, ""),
    game("l4d2", &["left4dead2"], "Left 4 Dead 2", A2s, 27015, 27015, N, GL, ""),
    game("moha", &["mohab"], "Medal of Honor: Airborne", Gamespy1, 12203, 12300, N, G, "Query port = game port + 97"),
    game("mohaa", &[], "Medal of Honor: Allied Assault", Gamespy1, 12203, 12300, N, G, "Query port = game port + 97"),
    game("mohaab", &["mohbt"], "Medal of Honor: Allied Assault Breakthrough", Gamespy1, 12203, 12300, N, G, "Query port = game port + 97"),
    game("mohaas", &["mohsh"], "Medal of Honor: Allied Assault Spearhead", Gamespy1, 12203, 12300, N, G, "Query port = game port + 97"),
    game("mohpa", &[], "Medal of Honor: Pacific Assault", Gamespy1, 13203, 13300, N, G, "Query port = game port + 97"),
    game("mbe", &["minecraftbe"], "Minecraft: Bedrock Edition", MinecraftBedrock, 19132, 19132, N, G, "RakNet ping on the game port (server-port in server.properties); in the LinuxGSM catalogue as mcbserver"),
    Game {
        id: "minecraft", aliases: &[], name: "Minecraft: Java Edition", protocol: Minecraft,
        also: &[MinecraftQuery], game_port: 25565, query_port: 25565, quirks: N, source: GL,
        notes: "Without a port the _minecraft._tcp SRV record is tried first; minecraft-query needs enable-query=true",
    },
    game("mordhau", &[], "Mordhau", A2s, 7777, 27015, N, GL, ""),
    game("mumble", &[], "Mumble", Mumble, 64738, 64738, N, G, "The UDP ping on the voice port (gamedig's mumbleping); no server name in the protocol; in the LinuxGSM catalogue as mumbleserver"),
    game("naturalselection2", &["ns2"], "Natural Selection 2", A2s, 27015, 27016, N, GL, "Query port = game port + 1"),
    game("nfshp2", &[], "Need for Speed: Hot Pursuit 2", Gamespy1, 61220, 61220, N, G, ""),
    game("nab", &[], "Nerf Arena Blast", Gamespy1, 4444, 4445, N, G, "Query port = game port + 1"),
    game("netpanzer", &[], "netPanzer", Gamespy1, 3030, 3030, N, G, "One datagram without queryid or leading backslash. Tested against Debian's netpanzer 0.8.7 (.ci/interop/netpanzer.sh)"),
    game("nitrofamily", &[], "Nitro Family", Gamespy1, 25601, 25601, N, G, ""),
    game("nmrih", &[], "No More Room in Hell", A2s, 27015, 27015, N, GL, ""),
    game("nolf2asihw", &["nolf2"], "No One Lives Forever 2: A Spy in H.A.R.M.'s Way", Gamespy1, 27890, 27890, N, G, ""),
    game("gtasao", &["saomp"], "open.mp (San Andreas)", Samp, 7777, 7777, N, G, "Answers the SA:MP query"),
    game("openarena", &[], "OpenArena", Quake3, 27960, 27960, N, G, "ioquake3; max is sv_maxclients minus sv_privateClients. Tested against Debian's openarena-server 0.8.8"),
    game("ofcwc", &[], "Operation Flashpoint: Cold War Crisis", Gamespy1, 2302, 2303, N, G, "Query port = game port + 1"),
    game("ofr", &["flashpointresistance"], "Operation Flashpoint: Resistance", Gamespy1, 2302, 2303, N, G, "Query port = game port + 1"),
    game("pixark", &[], "PixARK", A2s, 7777, 27015, N, G, ""),
    game("postal2", &[], "Postal 2", Gamespy1, 7777, 7778, N, G, "Query port = game port + 1"),
    game("projectzomboid", &["przomboid"], "Project Zomboid", A2s, 16261, 16261, N, GL, ""),
    game("q3a", &["quake3"], "Quake III Arena", Quake3, 27960, 27960, N, GL, "ioquake3 answers a burst of 10 requests, then one per second per address"),
    game("quakelive", &[], "Quake Live", A2s, 27960, 27960, N, GL, "Answers A2S, not the Quake 3 protocol"),
    game("rainbowsix", &["r6"], "Rainbow Six", Gamespy1, 2348, 2348, N, G, ""),
    game("rs2rs", &["r6roguespear"], "Rainbow Six 2: Rogue Spear", Gamespy1, 2346, 2346, N, G, ""),
    game("rs3rs", &["r6ravenshield"], "Rainbow Six 3: Raven Shield", Gamespy1, 7777, 8777, N, G, "Query port = game port + 1000"),
    game("rallisportchallenge", &[], "RalliSport Challenge", Gamespy1, 17500, 17500, N, G, ""),
    game("rallymasters", &[], "Rally Masters", Gamespy1, 16666, 16666, N, G, ""),
    game("roo4145", &["redorchestraost"], "Red Orchestra: Ostfront 41-45", Gamespy1, 7757, 7767, N, G, "Query port = game port + 10"),
    game("redline", &[], "Redline", Gamespy1, 25252, 25252, N, G, ""),
    game("rtcw", &[], "Return to Castle Wolfenstein", Quake3, 27960, 27960, N, GL, "Quake 3 engine"),
    game("ron", &["riseofnations"], "Rise of Nations", Gamespy1, 6501, 6501, N, G, ""),
    game("ror2", &[], "Risk of Rain 2", A2s, 27015, 27016, N, G, "Query port = game port + 1"),
    game("rune", &[], "Rune", Gamespy1, 7777, 7778, N, G, "Query port = game port + 1"),
    game("rust", &[], "Rust", A2s, 28015, 28015, N.counts_in_keywords(), "gamedig, LinuxGSM", "True counts and queue in keywords (cp, mp, qp); with +server.queryport set (LinuxGSM: 28017) put that port in the address"),
    game("gtasam", &["samp"], "San Andreas Multiplayer (SA:MP)", Samp, 7777, 7777, N, GL, "Legacy code-page strings: set encoding"),
    game("serioussam", &["ss"], "Serious Sam", Gamespy1, 25600, 25601, N, G, "Query port = game port + 1"),
    game("sstse", &[], "Serious Sam: The Second Encounter", Gamespy1, 25600, 25601, N, G, "Query port = game port + 1"),
    game("shogo", &[], "Shogo", Gamespy1, 27888, 27888, N, G, ""),
    game("sin", &[], "SiN", Gamespy1, 22450, 22450, N, G, ""),
    game("sof", &[], "Soldier of Fortune", Gamespy1, 28910, 28911, N, G, "Query port = game port + 1"),
    game("sof2", &[], "Soldier of Fortune II", Quake3, 20100, 20100, N, G, "Quake 3 engine"),
    game("sotf", &["sonsoftheforest"], "Sons Of The Forest", A2s, 8766, 27016, N, G, ""),
    game("soulmask", &[], "Soulmask", A2s, 8777, 27015, N, G, "Reports version 1.0.0.0 in the info reply; the real one is in the rules (NO_s)"),
    game("spaceengineers", &[], "Space Engineers", A2s, 27015, 27015, N, G, ""),
    game("stbc", &[], "Star Trek: Bridge Commander", Gamespy1, 22101, 22101, N, G, ""),
    game("swjk2jo", &["swjk2"], "Star Wars Jedi Knight II: Jedi Outcast", Quake3, 28070, 28070, N, G, "Quake 3 engine"),
    game("swjkja", &["swjk"], "Star Wars Jedi Knight: Jedi Academy", Quake3, 29070, 29070, N, G, "Quake 3 engine"),
    game("starbound", &[], "Starbound", A2s, 21025, 21025, N, GL, ""),
    game("svencoop", &[], "Sven Co-op", A2s, 27015, 27015, N, GL, "GoldSrc"),
    game("tacticalops", &[], "Tactical Ops", Gamespy1, 7777, 7778, N, G, "Query port = game port + 1"),
    game("toh", &["takeonhelicopters"], "Take On Helicopters", Gamespy1, 2302, 2303, N, G, "Query port = game port + 1"),
    game("teamfactor", &[], "Team Factor", Gamespy1, 57778, 57778, N, G, ""),
    game("teamfortress2", &["tf2"], "Team Fortress 2", A2s, 27015, 27015, N, GL, ""),
    game("tfc", &[], "Team Fortress Classic", A2s, 27015, 27015, N, GL, "GoldSrc"),
    game("teeworlds", &[], "Teeworlds", Teeworlds, 8303, 8303, N, "LinuxGSM", "Also DDNet and its mods; query port = sv_port. A 0.7 server is found after a 500 ms fallback, then asked first"),
    game("terminus", &[], "Terminus", Gamespy1, 12286, 12286, N, G, ""),
    game("theforest", &["forrest"], "The Forest", A2s, 27015, 27016, N, G, "Query port = game port + 1"),
    game("theisle", &["isle"], "The Isle", A2s, 7707, 7708, N, G, "Query port = game port + 1"),
    game("tonolf", &["nolf"], "The Operative: No One Lives Forever", Gamespy1, 27888, 27888, N, G, ""),
    game("thps3", &[], "Tony Hawk's Pro Skater 3", Gamespy1, 6500, 6500, N, G, ""),
    game("thps4", &[], "Tony Hawk's Pro Skater 4", Gamespy1, 6500, 6500, N, G, ""),
    game("thu2", &[], "Tony Hawk's Underground 2", Gamespy1, 5153, 5153, N, G, ""),
    game("turok2", &[], "Turok 2", Gamespy1, 12880, 12880, N, G, ""),
    game("unreal", &[], "Unreal", Gamespy1, 7777, 7778, N, G, "Query port = game port + 1"),
    game("unrealtournament", &["ut"], "Unreal Tournament", Gamespy1, 7777, 7778, N, G, "Query port = game port + 1"),
    game("unturned", &[], "Unturned", A2s, 27015, 27016, N, "gamedig, LinuxGSM", "Follows gamedig (game port + 1); LinuxGSM queries the game port"),
    game("urbanterror", &[], "Urban Terror", Quake3, 27960, 27960, N, G, "ioquake3-based"),
    game("v8sc", &["v8supercar"], "V8 Supercar Challenge", Gamespy1, 16700, 16700, N, G, ""),
    game("valheim", &[], "Valheim", A2s, 2456, 2457, N, GL, "Query port = game port + 1; answers only when started with -public 1; crossplay servers report 0 players"),
    game("vietcong", &[], "Vietcong", Gamespy1, 5425, 15425, N, G, "Fixed query port"),
    game("wot", &["wheeloftime"], "Wheel of Time", Gamespy1, 7777, 7778, N, G, "Query port = game port + 1"),
    game("wet", &["wolfensteinet"], "Wolfenstein: Enemy Territory", Quake3, 27960, 27960, N, GL, "Quake 3 engine"),
    game("wurmunlimited", &["wurm"], "Wurm Unlimited", A2s, 3724, 27016, N, GL, ""),
    game("zps", &[], "Zombie Panic! Source", A2s, 27015, 27015, N, GL, ""),
];
