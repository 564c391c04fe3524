//! Table columns (and other rows of items, such as the top bar's status) with priorities, so that a
//! table fits its window at any size: the columns are taken in order of priority while they fit
//! (what says where a row is, such as a job's state and progress, before its paths and
//! attributes), shown in their own order, and one column (the name) takes the width left. Each set
//! of columns shown keeps its own widths (resized by hand and remembered by egui with the table's
//! id), so a window made narrower never reuses widths made for a wider one.

use egui_extras::{Column, TableBuilder};

/// One column of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct TableColumn {
    /// Its heading (also what says which columns were left out).
    pub title: String,
    /// The width it starts at.
    pub width: f32,
    /// Its smallest width.
    pub min_width: f32,
    /// 0 is always shown; a larger number is left out first when the window is narrow.
    pub priority: u32,
    /// How it sizes.
    pub sizing: Sizing,
}

/// How a column sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sizing {
    /// Always its width (a checkbox, a thumbnail, the action buttons).
    Fixed,
    /// Starts at its width; the user may resize it.
    Resizable,
    /// Takes the width the others leave (at least its smallest width).
    Remainder,
}

impl TableColumn {
    /// A column of fixed width, always shown.
    pub fn fixed(title: &str, width: f32) -> Self {
        Self {
            title: title.to_owned(),
            width,
            min_width: width,
            priority: 0,
            sizing: Sizing::Fixed,
        }
    }

    /// A resizable column starting at `width`, at least `min_width`, of `priority`.
    pub fn resizable(title: &str, width: f32, min_width: f32, priority: u32) -> Self {
        Self {
            title: title.to_owned(),
            width,
            min_width,
            priority,
            sizing: Sizing::Resizable,
        }
    }

    /// The column that takes the width left, at least `min_width`, always shown.
    pub fn remainder(title: &str, min_width: f32) -> Self {
        Self {
            title: title.to_owned(),
            width: min_width,
            min_width,
            priority: 0,
            sizing: Sizing::Remainder,
        }
    }

    /// The same column with another priority.
    pub fn with_priority(mut self, priority: u32) -> Self {
        self.priority = priority;
        self
    }

    /// The egui column.
    fn column(&self) -> Column {
        match self.sizing {
            Sizing::Fixed => Column::exact(self.width).resizable(false),
            Sizing::Resizable => Column::initial(self.width)
                .at_least(self.min_width)
                .clip(true),
            // Not resizable: a resizable column keeps its width, and this one must take what the
            // others leave at every window size.
            Sizing::Remainder => Column::remainder()
                .at_least(self.min_width)
                .clip(true)
                .resizable(false),
        }
    }
}

/// The columns of a table that fit `available` points (with `spacing` between two), in their own
/// order: every column of priority 0, then the others by priority (then order) while they fit.
pub fn columns_that_fit(columns: &[TableColumn], available: f32, spacing: f32) -> Vec<usize> {
    let items: Vec<(f32, u32)> = columns
        .iter()
        .map(|column| {
            let width = match column.sizing {
                Sizing::Remainder => column.min_width,
                Sizing::Fixed | Sizing::Resizable => column.width,
            };
            (width, column.priority)
        })
        .collect();
    fit_by_priority(&items, available, spacing)
}

/// The items of a row, each `(width, priority)`, that fit `available` points (with `spacing`
/// between two), in their own order: every item of priority 0, then the others by priority (then
/// order) while they fit. For table columns and for the top bar's status alike.
pub fn fit_by_priority(items: &[(f32, u32)], available: f32, spacing: f32) -> Vec<usize> {
    let mut by_priority: Vec<usize> = (0..items.len()).collect();
    by_priority.sort_by_key(|&index| items[index].1);
    let mut chosen = Vec::new();
    let mut used = 0.0;
    for index in by_priority {
        let (width, priority) = items[index];
        let needed = width + if chosen.is_empty() { 0.0 } else { spacing };
        if priority == 0 || used + needed <= available {
            used += needed;
            chosen.push(index);
        }
    }
    chosen.sort_unstable();
    chosen
}

/// The columns chosen for a table this frame: which are shown, and which were left out.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnLayout {
    /// The indices of the columns shown, in order.
    pub shown: Vec<usize>,
    /// The titles of the columns left out.
    pub left_out: Vec<String>,
}

impl ColumnLayout {
    /// The layout of `columns` in the width left in `ui`.
    pub fn fit(ui: &egui::Ui, columns: &[TableColumn]) -> Self {
        let spacing = ui.spacing().item_spacing.x;
        let shown = columns_that_fit(columns, ui.available_width(), spacing);
        let left_out = (0..columns.len())
            .filter(|index| !shown.contains(index))
            .map(|index| columns[index].title.clone())
            .collect();
        Self { shown, left_out }
    }

    /// True when column `index` is shown.
    pub fn shows(&self, index: usize) -> bool {
        self.shown.contains(&index)
    }

    /// The table's columns, with an id of its own for this set of columns (its widths are
    /// remembered apart from the other sets').
    pub fn apply<'a>(
        &self,
        table: TableBuilder<'a>,
        columns: &[TableColumn],
        id: &str,
    ) -> TableBuilder<'a> {
        let mut table = table.id_salt((id, self.shown.clone()));
        for &index in &self.shown {
            table = table.column(columns[index].column());
        }
        table
    }

    /// A line under the table's toolbar naming the columns left out, with the way to see them.
    pub fn left_out_ui(&self, ui: &mut egui::Ui) {
        if self.left_out.is_empty() {
            return;
        }
        let sentence = format!(
            "{} column(s) do not fit: widen the window to see them.",
            self.left_out.len()
        );
        // One hover text, the sentence and the columns' names: a cut sentence's own tooltip
        // would say it a second time.
        let hover = format!("{sentence}\n{}", self.left_out.join(", "));
        ui.add(
            egui::Label::new(egui::RichText::new(sentence).small().weak())
                .truncate()
                .show_tooltip_when_elided(false),
        )
        .on_hover_text(hover);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Vec<TableColumn> {
        vec![
            TableColumn::remainder("File", 150.0),
            TableColumn::resizable("Stored as", 180.0, 80.0, 2),
            TableColumn::resizable("State", 240.0, 160.0, 0),
            TableColumn::resizable("Attribute", 120.0, 50.0, 3),
            TableColumn::fixed("Actions", 140.0),
        ]
    }

    #[test]
    fn state_stays_and_paths_go_first_when_the_window_narrows() {
        let spacing = 8.0;
        assert_eq!(columns_that_fit(&table(), 2000.0, spacing), [0, 1, 2, 3, 4]);
        // The attribute goes before the stored path.
        assert_eq!(columns_that_fit(&table(), 760.0, spacing), [0, 1, 2, 4]);
        // Then the stored path; the state and the actions stay.
        assert_eq!(columns_that_fit(&table(), 600.0, spacing), [0, 2, 4]);
        // Columns of priority 0 stay even when nothing fits.
        assert_eq!(columns_that_fit(&table(), 10.0, spacing), [0, 2, 4]);
    }
}
