//! The partlens-cli commands, on top of `tasks` and `api`: JSON on stdout, one-line errors on stderr.
