//! SA:MP and open.mp query: see `shared/protocols/samp-query.txt` and NOTES.md.
