//! Valve A2S (Source and GoldSrc): see `shared/protocols/valve-a2s.txt` and NOTES.md.
