//! The fixed split of the real-world corpus (`../shared/realworld/`) into two halves, so that a
//! ranking is tuned on one half's searches and reported on the other's (files the tuning never
//! saw). The benches that measure search quality on the corpus (the service's `realworld_search`,
//! the engine's `corpus_ranking`) take their halves from here, so both say the same thing.
//!
//! The rule: a file's half is bit 1 of the 64-bit FNV-1a hash of its manifest family, or of its twin
//! key when it has no family, or of its path when it has neither. So a family (and a part's every
//! format) is wholly in one half: a family tuned on is never reported on. The bit was chosen before
//! any tuning, as the low bit of the hash that splits the 90 searches in families of one kind of
//! part most evenly (46 in the tuning half, 44 held out; bit 0 splits them 58 / 32).
//! The library searched always holds every file of both halves.

/// Which half of the corpus a file is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CorpusHalf {
    /// The half a ranking's weights may be chosen on.
    Tuning,
    /// The half reported, never tuned on.
    HeldOut,
}

impl CorpusHalf {
    /// Both halves, tuning first.
    pub const BOTH: [Self; 2] = [Self::Tuning, Self::HeldOut];

    /// The half's name in a bench's table.
    pub fn name(self) -> &'static str {
        match self {
            Self::Tuning => "tuning half",
            Self::HeldOut => "held-out half",
        }
    }
}

/// The half of a corpus file with manifest `family`, `twin` key and `path` (see the module doc).
pub fn corpus_half(family: &str, twin: &str, path: &str) -> CorpusHalf {
    let key = [family, twin, path]
        .into_iter()
        .find(|key| !key.is_empty())
        .unwrap_or_default();
    if crate::part_numbers::fnv1a_64(key.as_bytes()) & 0b10 == 0 {
        CorpusHalf::Tuning
    } else {
        CorpusHalf::HeldOut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_is_wholly_in_one_half_and_the_rule_is_fixed() {
        let screws = "freecadlib/Fasteners/Bolts & Screws/Metric/ISO4762 socket head cap screw";
        assert_eq!(
            corpus_half(screws, "fclib:a", "step/a.step"),
            corpus_half(screws, "fclib:b", "mesh/b.stl")
        );
        // The halves of two families as the corpus's benches reported them: a change of the rule
        // would move every figure of the docs.
        assert_eq!(corpus_half(screws, "", ""), CorpusHalf::Tuning);
        assert_eq!(
            corpus_half(
                "freecadlib/Fasteners/Nuts/hex nut (ISO4032 + ANSI B18.2.2)",
                "",
                ""
            ),
            CorpusHalf::HeldOut
        );
        // Without a family the twin key decides, so a part's formats stay together.
        assert_eq!(
            corpus_half("", "twin:x", "step/x.step"),
            corpus_half("", "twin:x", "mesh/x.stl")
        );
    }
}
