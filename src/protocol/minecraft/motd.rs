//! MOTD: chat components and `§` codes to plain text.
