//! Which of a file's views a graph searches, and which it only scores (issue 51 item 1).
//!
//! A model indexed as a database file has a view from each of the engine's 162 directions (a flat
//! part 48 more near edge-on) and its picture's. A graph over every view of a 100,000-part library
//! holds about 18 million: half an hour and more to build, and most of the neighbours a search
//! finds are the same models seen from a few degrees away. With [`AnnSettings::graph_directions`]
//! below 162, the graph holds of each such model only the views from that many directions spread
//! evenly (`engine::mesh::spread_views_of_database_model`: any direction within 18° of one of 92)
//! and its picture's, and every view of the model is kept beside the graph in the same half
//! precision, one block a file, so every estimate still scores the model on all its views. So the
//! candidates are found among fewer views, and what decides the ranking does not change. The block
//! holds the graph's views too: an estimate reads a model's views in one go instead of one at a
//! time through the graph's key lookup, which cost 1–2 µs a view, more than scoring it (at 10,000
//! parts a supplier filter's 196 models took 78 ms to estimate and score through the graph). A
//! view in the graph then costs its vector twice (956 B a view of a 10,000-part library with 92
//! directions, against 897 B for a graph of every view). Measured on the corpus
//! (docs/PERFORMANCE.md, "Views a model at 100,000 parts"): a model's own directions found it by
//! the 92 as well as by all. At scale (docs/PERFORMANCE.md, "A graph over 92 directions"): half
//! the build time, but recall@10 of one photograph 0.917 against 1.000 for the graph of every
//! view, which since models are scored on their deciding views answers within the time goals at
//! 10,000 parts too; so it is a setting for a build or memory that does not fit, not the default.
//!
//! Files of any other layout (pictures, drawings' pages, models of an earlier descriptor version)
//! keep every view in the graph.
//!
//! [`AnnSettings::graph_directions`]: super::AnnSettings::graph_directions

use partlens_engine::mesh::{
    VIEWS_PER_FLAT_MODEL, VIEWS_PER_MODEL, spread_views_of_database_model,
};

/// Directions of the engine's 162 a model's coarse views are seen from (the views a selective
/// filter ranks it by first, `ann/coarse.rs`): the 32 a model searched by brings
/// (`engine::mesh::SEARCH_INPUT_DIRECTIONS`), so they are spread evenly.
pub(crate) const COARSE_DIRECTIONS: usize = partlens_engine::mesh::SEARCH_INPUT_DIRECTIONS;

/// How the views of a file of one layout are split.
#[derive(Clone, Debug)]
struct Split {
    /// The file's view count this split is for.
    views: usize,
    /// The positions in the graph, in order.
    graph: Vec<usize>,
    /// The positions a selective filter ranks the file by first (`ann/coarse.rs`), in order.
    coarse: Vec<usize>,
    /// Where each position's vector is in the file's block beside the graph: the coarse views
    /// first, one after another (so ranking by them reads one run of memory, not 33 scattered
    /// views: 316 against about 130 ns a view measured here), then the others in order.
    beside_at: Vec<usize>,
    /// The positions in the block's order (the inverse of `beside_at`).
    beside_order: Vec<usize>,
}

/// Which views of each layout a graph holds.
#[derive(Clone, Debug, Default)]
pub(crate) struct GraphViews {
    /// The layouts whose views are split (none: every view of every file is in the graph).
    splits: Vec<Split>,
}

impl GraphViews {
    /// The split for a graph of database models seen from `directions` of the engine's directions
    /// (every view in the graph when that is all of them).
    pub(crate) fn new(directions: usize) -> Self {
        let splits = [VIEWS_PER_MODEL, VIEWS_PER_FLAT_MODEL]
            .into_iter()
            .filter_map(|views| {
                let coarse = spread_views_of_database_model(views, COARSE_DIRECTIONS)?;
                let mut beside_order = coarse.clone();
                beside_order.extend((0..views).filter(|position| !coarse.contains(position)));
                let mut beside_at = vec![0; views];
                for (at, &position) in beside_order.iter().enumerate() {
                    beside_at[position] = at;
                }
                spread_views_of_database_model(views, directions).map(|graph| Split {
                    views,
                    graph,
                    coarse,
                    beside_at,
                    beside_order,
                })
            })
            .collect();
        Self { splits }
    }

    fn split(&self, views: usize) -> Option<&Split> {
        self.splits.iter().find(|split| split.views == views)
    }

    /// The positions of a file of `views` views that are in the graph, in order.
    pub(crate) fn graph_positions(&self, views: usize) -> Vec<usize> {
        match self.split(views) {
            Some(split) => split.graph.clone(),
            None => (0..views).collect(),
        }
    }

    /// The positions of a file of `views` views that a selective filter ranks it by first
    /// (`ann/coarse.rs`): a split file's coarse views, `None` for a file kept whole in the graph.
    pub(crate) fn coarse_positions(&self, views: usize) -> Option<&[usize]> {
        self.split(views).map(|split| split.coarse.as_slice())
    }

    /// Where the vector of view `position` of a file of `views` views is in its block beside the
    /// graph (see `Split::beside_at`); the position itself for a file kept whole.
    pub(crate) fn beside_index(&self, views: usize, position: usize) -> usize {
        self.split(views)
            .and_then(|split| split.beside_at.get(position).copied())
            .unwrap_or(position)
    }

    /// The positions of a file of `views` views in the order of its block beside the graph (the
    /// coarse views first); `None` for a file kept whole.
    pub(crate) fn beside_order(&self, views: usize) -> Option<&[usize]> {
        self.split(views).map(|split| split.beside_order.as_slice())
    }

    /// How many views of a file of `views` views are in the graph.
    pub(crate) fn in_graph(&self, views: usize) -> usize {
        self.split(views).map_or(views, |split| split.graph.len())
    }

    /// How many views of a file of `views` views are kept beside the graph: all of a split file's,
    /// none of another's.
    pub(crate) fn beside(&self, views: usize) -> usize {
        if self.split(views).is_some() {
            views
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_models_views_are_split_and_every_other_file_stays_whole() {
        let split = GraphViews::new(92);
        assert_eq!(split.in_graph(VIEWS_PER_MODEL), 93);
        assert_eq!(split.graph_positions(VIEWS_PER_FLAT_MODEL).len(), 93);
        assert_eq!(split.beside(VIEWS_PER_FLAT_MODEL), VIEWS_PER_FLAT_MODEL);
        assert_eq!(split.in_graph(7), 7, "another layout stays whole");
        assert_eq!(
            split.coarse_positions(VIEWS_PER_MODEL).map(<[usize]>::len),
            Some(COARSE_DIRECTIONS + 1),
            "a model is ranked first on its coarse directions and its picture"
        );
        assert_eq!(split.coarse_positions(7), None);
        // The block beside the graph starts with the coarse views, and every position has its
        // place in it once.
        let coarse = split
            .coarse_positions(VIEWS_PER_FLAT_MODEL)
            .unwrap()
            .to_vec();
        let order = split.beside_order(VIEWS_PER_FLAT_MODEL).unwrap();
        assert_eq!(order[..coarse.len()], coarse[..]);
        let mut sorted = order.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..VIEWS_PER_FLAT_MODEL).collect::<Vec<_>>());
        for (at, &position) in order.iter().enumerate() {
            assert_eq!(split.beside_index(VIEWS_PER_FLAT_MODEL, position), at);
        }
        assert_eq!(split.beside_index(7, 5), 5);
        assert_eq!(split.beside(7), 0);
        let whole = GraphViews::new(162);
        assert_eq!(whole.in_graph(VIEWS_PER_MODEL), VIEWS_PER_MODEL);
        assert_eq!(whole.beside(VIEWS_PER_MODEL), 0);
        assert_eq!(whole.coarse_positions(VIEWS_PER_MODEL), None);
    }
}
