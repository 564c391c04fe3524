//! Where the Duplicates place puts each group and each file's card, computed from the groups' file
//! counts and the place's width alone: groups side by side as they fit, in rows, a group's cards
//! on more lines when it is wider than the place. Knowing every row's height without drawing it is
//! what lets the place lay out only the rows on screen (4,609 groups at a 100,000-file library),
//! and bring a group far below on screen when the keyboard's cursor moves there. Positions are in
//! the content's space: (0, 0) is the top left of the first row, y grows down the scrolled list.

use std::ops::Range;

use egui::{Rect, pos2, vec2};

/// Width of a file's card, in points.
pub const FILE_CARD_WIDTH: f32 = 176.0;

/// Height of a file's card, in points.
pub const FILE_CARD_HEIGHT: f32 = 216.0;

/// Space between groups and between a group's cards, in points.
pub const GROUP_SPACING: f32 = 10.0;

/// Space inside a group's frame, in points.
pub const GROUP_MARGIN: f32 = 10.0;

/// Width of a group frame's line.
const GROUP_STROKE: f32 = 1.0;

/// Height of a group's line of number, file count, score and *Compare*.
pub const GROUP_HEADER_HEIGHT: f32 = 24.0;

/// The width of a group of `files` files, its frame included, at most `full_width` (then its
/// cards go on more lines).
pub fn group_width(files: usize, full_width: f32) -> f32 {
    let files = files.max(1) as f32;
    let cards = files * FILE_CARD_WIDTH + (files - 1.0) * GROUP_SPACING;
    (cards + 2.0 * (GROUP_MARGIN + GROUP_STROKE)).min(full_width)
}

/// The groups of each row: as many as fit `full_width` side by side, in order.
pub fn group_rows(widths: &[f32], full_width: f32) -> Vec<Range<usize>> {
    let mut rows = Vec::new();
    let (mut start, mut used) = (0, 0.0);
    for (index, width) in widths.iter().enumerate() {
        let needed = if index == start {
            *width
        } else {
            used + GROUP_SPACING + width
        };
        if index > start && needed > full_width {
            rows.push(start..index);
            start = index;
            used = *width;
        } else {
            used = needed;
        }
    }
    if start < widths.len() {
        rows.push(start..widths.len());
    }
    rows
}

/// One row of groups.
#[derive(Clone, Debug, PartialEq)]
struct RowPlace {
    /// Its top.
    top: f32,
    /// Its height: its tallest group's.
    height: f32,
    /// Its groups.
    groups: Range<usize>,
}

/// One group: where its frame goes, and where its files are in the cursor's order.
#[derive(Clone, Debug, PartialEq)]
struct GroupPlace {
    /// Its frame.
    rect: Rect,
    /// Its first file's index among the files of every group, in order.
    first_file: usize,
    /// How many files it has.
    files: usize,
    /// Cards on one of its lines.
    cards_a_line: usize,
}

/// Where every group and card of the place goes at one width.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupsLayout {
    width: f32,
    rows: Vec<RowPlace>,
    groups: Vec<GroupPlace>,
    height: f32,
}

impl GroupsLayout {
    /// The layout of groups of `file_counts` files, in order, in a place `full_width` wide.
    pub fn new(file_counts: &[usize], full_width: f32) -> Self {
        let widths: Vec<f32> = file_counts
            .iter()
            .map(|files| group_width(*files, full_width))
            .collect();
        let mut groups = Vec::with_capacity(file_counts.len());
        let mut rows = Vec::new();
        let (mut top, mut first_file) = (0.0, 0);
        for range in group_rows(&widths, full_width) {
            let mut left = 0.0;
            let mut height: f32 = 0.0;
            for index in range.clone() {
                let (files, width) = (file_counts[index], widths[index]);
                let inside = width - 2.0 * (GROUP_MARGIN + GROUP_STROKE);
                let cards_a_line = (((inside + GROUP_SPACING) / (FILE_CARD_WIDTH + GROUP_SPACING))
                    .floor() as usize)
                    .clamp(1, files.max(1));
                let lines = files.div_ceil(cards_a_line).max(1) as f32;
                let group_height = 2.0 * (GROUP_MARGIN + GROUP_STROKE)
                    + GROUP_HEADER_HEIGHT
                    + lines * (GROUP_SPACING + FILE_CARD_HEIGHT);
                groups.push(GroupPlace {
                    rect: Rect::from_min_size(pos2(left, top), vec2(width, group_height)),
                    first_file,
                    files,
                    cards_a_line,
                });
                left += width + GROUP_SPACING;
                height = height.max(group_height);
                first_file += files;
            }
            rows.push(RowPlace {
                top,
                height,
                groups: range,
            });
            top += height + GROUP_SPACING;
        }
        Self {
            width: full_width,
            rows,
            groups,
            height: (top - GROUP_SPACING).max(0.0),
        }
    }

    /// The width it was made for.
    pub fn width(&self) -> f32 {
        self.width
    }

    /// The height of every row, with the spaces between them.
    pub fn height(&self) -> f32 {
        self.height
    }

    /// How many files the groups have.
    pub fn files(&self) -> usize {
        self.groups
            .last()
            .map_or(0, |group| group.first_file + group.files)
    }

    /// The groups of the rows that reach into `top..bottom`.
    pub fn groups_within(&self, top: f32, bottom: f32) -> Range<usize> {
        let first_row = self.rows.partition_point(|row| row.top + row.height < top);
        let end_row = self.rows.partition_point(|row| row.top <= bottom);
        if first_row >= end_row {
            return 0..0;
        }
        self.rows[first_row].groups.start..self.rows[end_row - 1].groups.end
    }

    /// The frame of group `group`.
    pub fn group_rect(&self, group: usize) -> Option<Rect> {
        self.groups.get(group).map(|place| place.rect)
    }

    /// The line of group `group`'s number, score and *Compare*.
    pub fn header_rect(&self, group: usize) -> Option<Rect> {
        let inside = self.group_rect(group)?.shrink(GROUP_MARGIN + GROUP_STROKE);
        Some(Rect::from_min_size(
            inside.min,
            vec2(inside.width(), GROUP_HEADER_HEIGHT),
        ))
    }

    /// The card of file `position` (from 0) of group `group`.
    pub fn card_rect(&self, group: usize, position: usize) -> Option<Rect> {
        let place = self.groups.get(group)?;
        if position >= place.files {
            return None;
        }
        let (line, column) = (position / place.cards_a_line, position % place.cards_a_line);
        let inside =
            place.rect.min + vec2(GROUP_MARGIN + GROUP_STROKE, GROUP_MARGIN + GROUP_STROKE);
        let left = inside.x + column as f32 * (FILE_CARD_WIDTH + GROUP_SPACING);
        let top = inside.y
            + GROUP_HEADER_HEIGHT
            + GROUP_SPACING
            + line as f32 * (FILE_CARD_HEIGHT + GROUP_SPACING);
        Some(Rect::from_min_size(
            pos2(left, top),
            vec2(FILE_CARD_WIDTH, FILE_CARD_HEIGHT),
        ))
    }

    /// The files of group `group` whose cards reach into `top..bottom` (a group of thousands of
    /// files, as a low minimum score makes, is taller than the screen).
    pub fn cards_within(&self, group: usize, top: f32, bottom: f32) -> Range<usize> {
        let Some(place) = self.groups.get(group) else {
            return 0..0;
        };
        let first_top =
            place.rect.top() + GROUP_MARGIN + GROUP_STROKE + GROUP_HEADER_HEIGHT + GROUP_SPACING;
        if bottom < first_top || place.files == 0 {
            return 0..0;
        }
        let pitch = FILE_CARD_HEIGHT + GROUP_SPACING;
        let first_line = ((top - first_top - FILE_CARD_HEIGHT) / pitch)
            .ceil()
            .max(0.0) as usize;
        let end_line = ((bottom - first_top) / pitch).floor() as usize + 1;
        let start = (first_line * place.cards_a_line).min(place.files);
        let end = (end_line * place.cards_a_line).min(place.files);
        if start >= end { 0..0 } else { start..end }
    }

    /// The first file of group `group` in the cursor's order.
    pub fn first_file(&self, group: usize) -> Option<usize> {
        self.groups.get(group).map(|place| place.first_file)
    }

    /// The group and position in it of file `file` (in the cursor's order).
    pub fn file_at(&self, file: usize) -> Option<(usize, usize)> {
        let group = self
            .groups
            .partition_point(|place| place.first_file + place.files <= file);
        let place = self.groups.get(group)?;
        Some((group, file - place.first_file))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_stack_at_their_tallest_group_and_cards_wrap_inside_a_wide_group() {
        // Two groups of two fit 1000 points side by side, a third goes below; a group of twelve
        // is the place's width and puts its cards on lines of five.
        let layout = GroupsLayout::new(&[2, 2, 2, 12], 1000.0);
        let two_high = 2.0 * (GROUP_MARGIN + GROUP_STROKE)
            + GROUP_HEADER_HEIGHT
            + GROUP_SPACING
            + FILE_CARD_HEIGHT;
        assert_eq!(layout.group_rect(1).unwrap().top(), 0.0);
        assert_eq!(
            layout.group_rect(2).unwrap().top(),
            two_high + GROUP_SPACING
        );
        let wide = layout.group_rect(3).unwrap();
        assert_eq!(wide.width(), 1000.0);
        assert_eq!(wide.top(), 2.0 * (two_high + GROUP_SPACING));
        // Lines of five: the sixth card starts the second line.
        let sixth = layout.card_rect(3, 5).unwrap();
        assert_eq!(sixth.left(), layout.card_rect(3, 0).unwrap().left());
        assert_eq!(
            sixth.top() - layout.card_rect(3, 0).unwrap().top(),
            FILE_CARD_HEIGHT + GROUP_SPACING
        );
        assert_eq!(
            wide.height(),
            two_high + 2.0 * (FILE_CARD_HEIGHT + GROUP_SPACING)
        );
        assert_eq!(layout.height(), wide.bottom());
        assert!(layout.card_rect(3, 12).is_none());
        // Every card lies inside its group.
        for (group, files) in [2, 2, 2, 12].into_iter().enumerate() {
            for position in 0..files {
                let card = layout.card_rect(group, position).unwrap();
                assert!(layout.group_rect(group).unwrap().contains_rect(card));
            }
        }
        // Of the wide group, the cards of the lines reaching into a range.
        assert_eq!(
            layout.cards_within(3, sixth.top(), sixth.top() + 1.0),
            5..10
        );
        assert_eq!(
            layout.cards_within(3, sixth.top() - 15.0, sixth.top() + 1.0),
            0..10
        );
        assert_eq!(layout.cards_within(3, 0.0, 1e9), 0..12);
        assert_eq!(layout.cards_within(3, wide.top(), wide.top() + 20.0), 0..0);
        assert_eq!(layout.cards_within(3, wide.bottom() + 1.0, 1e9), 0..0);
        assert_eq!(layout.cards_within(0, 0.0, 1e9), 0..2);
        assert_eq!(layout.files(), 18);
        assert_eq!(layout.file_at(0), Some((0, 0)));
        assert_eq!(layout.file_at(5), Some((2, 1)));
        assert_eq!(layout.file_at(17), Some((3, 11)));
        assert_eq!(layout.file_at(18), None);
        assert_eq!(layout.first_file(3), Some(6));
    }

    #[test]
    fn only_the_rows_reaching_into_a_range_are_within_it() {
        let layout = GroupsLayout::new(&[2; 3_000], 1000.0);
        let row = layout.group_rect(2).unwrap().top();
        assert_eq!(layout.groups_within(0.0, 10.0), 0..2);
        assert_eq!(layout.groups_within(row - 1.0, row + 1.0), 2..4);
        assert_eq!(layout.groups_within(0.0, row + 1.0), 0..4);
        let last = layout.group_rect(2_999).unwrap();
        assert_eq!(
            layout.groups_within(last.top(), last.bottom()),
            2_998..3_000
        );
        assert_eq!(layout.groups_within(layout.height() + 10.0, 1e9), 0..0);
        assert_eq!(
            GroupsLayout::new(&[], 800.0).groups_within(0.0, 800.0),
            0..0
        );
    }
}
