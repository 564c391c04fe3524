//! The attributes CSV of a library sync: one row a file, a column naming the file (its name, or
//! its path in the folder) and columns that become attributes. A header carries the attribute's
//! name and, in parentheses, its unit (`weight(kg)`); a cell holds one value or several joined with
//! `|` (`EU|US`); an empty cell gives the file no such attribute.
//!
//! Read whole within [`SyncLimits`] (size, rows, columns, characters a cell), as UTF-8 with or
//! without a byte-order mark, separated by `,` or (as spreadsheets write it in many countries) by
//! `;` or a tab, whichever the header line uses most. Rows are matched to the scanned files: a
//! value with a `/` by its path in the folder, a bare name by the one file of that name (exact
//! case first, then ignoring case). What does not match is reported, never guessed.

use std::collections::HashMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::scan::ScannedFile;
use super::{CsvMapping, SyncError, SyncLimits};
use partlens_api::Attribute;
use partlens_api::attribute::{VALUE_DELIMITER, split_unit};

/// Headers taken for the file-name column when the mapping does not say (compared ignoring case,
/// spaces, `_` and `-`), in order of preference.
const FILE_COLUMN_NAMES: [&str; 5] = ["file", "filename", "path", "filepath", "name"];

/// How many rows the preview shows.
pub const PREVIEW_ROWS: usize = 5;

/// How many unmatched file names the preview and the summary list (the rest are counted).
pub const LISTED_PROBLEMS: usize = 20;

/// A CSV read into memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvTable {
    /// The file.
    pub path: PathBuf,
    /// The header cells, trimmed.
    pub headers: Vec<String>,
    /// The rows after the header.
    pub rows: Vec<CsvRow>,
}

/// One row of the CSV.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvRow {
    /// Its line in the file (1 is the header).
    pub line: u64,
    /// Its cells, trimmed; fewer than the headers when the row is short.
    pub cells: Vec<String>,
}

/// What a column of the CSV is used for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ColumnRole {
    /// It names the files.
    FileName,
    /// It becomes this attribute.
    Attribute {
        /// The attribute name.
        name: String,
        /// Its unit, from the header's parentheses.
        unit: Option<String>,
    },
    /// Not used.
    Unused,
}

/// A column as the preview shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CsvColumn {
    /// Its header.
    pub header: String,
    /// What it is used for.
    pub role: ColumnRole,
    /// Why it cannot become an attribute, when it cannot.
    pub problem: Option<String>,
}

/// A row of the CSV as the preview shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CsvSampleRow {
    /// The file name as the CSV writes it.
    pub file: String,
    /// The file of the folder it names, if it names one.
    pub found: Option<String>,
    /// The attributes it gives, in their wire form (`weight(kg)=1.2`).
    pub attributes: Vec<String>,
}

/// The CSV as it maps onto the folder, before anything is sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CsvPreview {
    /// The CSV.
    pub path: PathBuf,
    /// Every column with its role.
    pub columns: Vec<CsvColumn>,
    /// The rows after the header.
    pub rows: usize,
    /// The first rows with what they become.
    pub sample: Vec<CsvSampleRow>,
    /// Files of the folder that a row gives attributes.
    pub matched_files: usize,
    /// Files of the folder without a row (uploaded without attributes).
    pub files_without_row: usize,
    /// File names of rows that name no file of the folder (the first [`LISTED_PROBLEMS`]).
    pub unmatched_rows: Vec<String>,
    /// How many rows name no file of the folder.
    pub unmatched_count: usize,
    /// Other things worth knowing (left-out columns, repeated rows, ambiguous names).
    pub warnings: Vec<String>,
}

/// The mapping with its columns found: the file column and the attribute columns by index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedMapping {
    /// The column naming the files.
    pub file_column: usize,
    /// The attribute columns with their attribute name and unit.
    pub attributes: Vec<(usize, String, Option<String>)>,
    /// Columns left out of an automatic mapping, and why.
    pub warnings: Vec<String>,
}

impl ResolvedMapping {
    /// The mapping with every column named, as the preview hands it back to the setup.
    pub fn explicit(&self, table: &CsvTable, csv: &Path) -> CsvMapping {
        CsvMapping {
            csv: csv.to_path_buf(),
            file_column: table.headers.get(self.file_column).cloned(),
            attribute_columns: Some(
                self.attributes
                    .iter()
                    .filter_map(|(index, _, _)| table.headers.get(*index).cloned())
                    .collect(),
            ),
        }
    }
}

/// The attributes of the folder's files, from the CSV.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchedAttributes {
    /// The attributes of each file that has a row, by its path in the folder.
    pub by_path: HashMap<String, Vec<Attribute>>,
    /// For each row that gave attributes, the file it matched (the CSV's order).
    pub matched_rows: Vec<(usize, String)>,
    /// File names of rows that name no file of the folder.
    pub unmatched_rows: Vec<String>,
    /// Repeated rows, ambiguous names, rows without a file name.
    pub warnings: Vec<String>,
}

/// Reads a CSV within the limits.
pub fn read_csv(path: &Path, limits: &SyncLimits) -> Result<CsvTable, SyncError> {
    let csv_error = |message: String| SyncError::Csv {
        path: path.display().to_string(),
        message,
    };
    let file = std::fs::File::open(path).map_err(|error| csv_error(error.to_string()))?;
    let mut bytes = Vec::new();
    file.take(limits.max_csv_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| csv_error(error.to_string()))?;
    if bytes.len() as u64 > limits.max_csv_bytes {
        return Err(SyncError::Limit(format!(
            "the attributes CSV {} is larger than {} bytes; split it or leave out columns",
            path.display(),
            limits.max_csv_bytes
        )));
    }
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => text,
        Err(error) => {
            let line = bytes[..error.valid_up_to()]
                .iter()
                .filter(|byte| **byte == b'\n')
                .count()
                + 1;
            return Err(csv_error(format!(
                "line {line} is not UTF-8 text; save the CSV as UTF-8"
            )));
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(sniff_delimiter(text))
        .flexible(true)
        .has_headers(true)
        .from_reader(text.as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .map_err(|error| csv_error(error.to_string()))?
        .iter()
        .map(|cell| cell.trim().to_owned())
        .collect();
    if headers.iter().all(String::is_empty) {
        return Err(csv_error(
            "it has no header line; the first line names the columns".into(),
        ));
    }
    check_columns(path, headers.len(), 1, limits)?;
    check_cells(path, &headers, 1, limits)?;
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|error| csv_error(error.to_string()))?;
        let line = record.position().map_or(0, csv::Position::line);
        if record.iter().all(|cell| cell.trim().is_empty()) {
            continue;
        }
        if rows.len() == limits.max_csv_rows {
            return Err(SyncError::Limit(format!(
                "the attributes CSV {} has more than {} rows; split it",
                path.display(),
                limits.max_csv_rows
            )));
        }
        check_columns(path, record.len(), line, limits)?;
        let cells: Vec<String> = record.iter().map(|cell| cell.trim().to_owned()).collect();
        check_cells(path, &cells, line, limits)?;
        rows.push(CsvRow { line, cells });
    }
    Ok(CsvTable {
        path: path.to_path_buf(),
        headers,
        rows,
    })
}

fn check_columns(
    path: &Path,
    columns: usize,
    line: u64,
    limits: &SyncLimits,
) -> Result<(), SyncError> {
    if columns > limits.max_csv_columns {
        return Err(SyncError::Limit(format!(
            "line {line} of the attributes CSV {} has {columns} columns, more than {}; leave out \
             columns",
            path.display(),
            limits.max_csv_columns
        )));
    }
    Ok(())
}

fn check_cells(
    path: &Path,
    cells: &[String],
    line: u64,
    limits: &SyncLimits,
) -> Result<(), SyncError> {
    if let Some(column) = cells
        .iter()
        .position(|cell| cell.chars().count() > limits.max_csv_cell_chars)
    {
        return Err(SyncError::Limit(format!(
            "cell {} of line {line} of the attributes CSV {} holds more than {} characters",
            column + 1,
            path.display(),
            limits.max_csv_cell_chars
        )));
    }
    Ok(())
}

/// `,`, `;` or a tab: whichever the first line holds most of outside quotes (`,` on a tie).
fn sniff_delimiter(text: &str) -> u8 {
    let first_line = text.lines().next().unwrap_or("");
    let mut counts = [(b',', 0usize), (b';', 0), (b'\t', 0)];
    let mut quoted = false;
    for byte in first_line.bytes() {
        if byte == b'"' {
            quoted = !quoted;
        } else if !quoted && let Some(count) = counts.iter_mut().find(|(d, _)| *d == byte) {
            count.1 += 1;
        }
    }
    counts
        .iter()
        .copied()
        .max_by_key(|(delimiter, count)| (*count, *delimiter == b','))
        .map_or(b',', |(delimiter, _)| delimiter)
}

/// A header as an attribute name and unit, or why it cannot be one.
pub fn attribute_of_header(header: &str) -> Result<(String, Option<String>), String> {
    let (name, unit) = split_unit(header.trim());
    Attribute::new(name, unit.map(str::to_owned), Vec::<String>::new())
        .map(|attribute| (attribute.name, attribute.unit))
        .map_err(|error| error.to_string())
}

fn squeezed(header: &str) -> String {
    header
        .chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect()
}

impl CsvTable {
    /// Finds the mapping's columns: the file column (named, or guessed), the attribute columns
    /// (named, or every other column whose header is a valid attribute name).
    pub fn resolve(&self, mapping: &CsvMapping) -> Result<ResolvedMapping, SyncError> {
        let find = |header: &str| self.headers.iter().position(|known| known == header.trim());
        let missing = |header: &str| {
            SyncError::Setup(format!(
                "the attributes CSV has no column \"{header}\"; its columns are {}",
                self.headers.join(", ")
            ))
        };
        let file_column = match &mapping.file_column {
            Some(header) => find(header).ok_or_else(|| missing(header))?,
            None => FILE_COLUMN_NAMES
                .iter()
                .find_map(|wanted| {
                    self.headers
                        .iter()
                        .position(|header| squeezed(header) == *wanted)
                })
                .unwrap_or(0),
        };
        let mut attributes: Vec<(usize, String, Option<String>)> = Vec::new();
        let mut warnings = Vec::new();
        let mut take = |index: usize, explicit: bool| -> Result<(), SyncError> {
            let header = &self.headers[index];
            let mut refuse = |why: String| {
                if explicit {
                    Err(SyncError::Setup(format!(
                        "column \"{header}\" cannot become an attribute: {why}"
                    )))
                } else {
                    warnings.push(format!("Column \"{header}\" is left out: {why}."));
                    Ok(())
                }
            };
            match attribute_of_header(header) {
                Err(why) => refuse(why),
                Ok((name, unit)) => {
                    if attributes
                        .iter()
                        .any(|(_, known, _)| known.eq_ignore_ascii_case(&name))
                    {
                        refuse(format!("an earlier column is the attribute {name} already"))
                    } else {
                        attributes.push((index, name, unit));
                        Ok(())
                    }
                }
            }
        };
        match &mapping.attribute_columns {
            Some(headers) => {
                for header in headers {
                    let index = find(header).ok_or_else(|| missing(header))?;
                    if index == file_column {
                        return Err(SyncError::Setup(format!(
                            "column \"{header}\" names the files; it cannot also be an attribute"
                        )));
                    }
                    take(index, true)?;
                }
            }
            None => {
                for index in (0..self.headers.len()).filter(|index| *index != file_column) {
                    if !self.headers[index].is_empty() {
                        take(index, false)?;
                    }
                }
            }
        }
        Ok(ResolvedMapping {
            file_column,
            attributes,
            warnings,
        })
    }

    /// The attributes one row gives (empty cells give none).
    fn row_attributes(&self, row: &CsvRow, mapping: &ResolvedMapping) -> Vec<Attribute> {
        mapping
            .attributes
            .iter()
            .filter_map(|(index, name, unit)| {
                let values: Vec<String> = row
                    .cells
                    .get(*index)?
                    .split(VALUE_DELIMITER)
                    .map(str::trim)
                    .filter(|value| !value.is_empty())
                    .map(str::to_owned)
                    .collect();
                (!values.is_empty()).then(|| Attribute {
                    name: name.clone(),
                    unit: unit.clone(),
                    values,
                })
            })
            .collect()
    }

    /// Gives each scanned file the attributes of its row.
    pub fn match_files(
        &self,
        mapping: &ResolvedMapping,
        files: &[ScannedFile],
    ) -> MatchedAttributes {
        let index = FileIndex::new(files);
        let mut matched = MatchedAttributes::default();
        let mut first_row_of: HashMap<String, u64> = HashMap::new();
        for (row_index, row) in self.rows.iter().enumerate() {
            let written = row
                .cells
                .get(mapping.file_column)
                .map(String::as_str)
                .unwrap_or("");
            let key = normalized_file_cell(written);
            if key.is_empty() {
                matched.warnings.push(format!(
                    "Line {} has no file name; it is left out.",
                    row.line
                ));
                continue;
            }
            match index.find(&key) {
                Found::One(relative) => {
                    if let Some(first) = first_row_of.get(&relative) {
                        matched.warnings.push(format!(
                            "Line {} names {relative} again; line {first} is used.",
                            row.line
                        ));
                        continue;
                    }
                    first_row_of.insert(relative.clone(), row.line);
                    matched
                        .by_path
                        .insert(relative.clone(), self.row_attributes(row, mapping));
                    matched.matched_rows.push((row_index, relative));
                }
                Found::Several(count) => matched.warnings.push(format!(
                    "Line {} names {written}, which {count} files of the folder are called; write \
                     its path in the folder (folder/{written}).",
                    row.line
                )),
                Found::None => matched.unmatched_rows.push(written.to_owned()),
            }
        }
        matched
    }

    /// The preview of this CSV over the folder's files.
    pub fn preview(&self, mapping: &ResolvedMapping, files: &[ScannedFile]) -> CsvPreview {
        let matched = self.match_files(mapping, files);
        let columns = self
            .headers
            .iter()
            .enumerate()
            .map(|(index, header)| {
                let role = if index == mapping.file_column {
                    ColumnRole::FileName
                } else if let Some((_, name, unit)) =
                    mapping.attributes.iter().find(|(i, _, _)| *i == index)
                {
                    ColumnRole::Attribute {
                        name: name.clone(),
                        unit: unit.clone(),
                    }
                } else {
                    ColumnRole::Unused
                };
                CsvColumn {
                    header: header.clone(),
                    role,
                    problem: attribute_of_header(header).err(),
                }
            })
            .collect();
        let found_by_row: HashMap<usize, &String> = matched
            .matched_rows
            .iter()
            .map(|(row, relative)| (*row, relative))
            .collect();
        let sample = self
            .rows
            .iter()
            .enumerate()
            .take(PREVIEW_ROWS)
            .map(|(row_index, row)| CsvSampleRow {
                file: row
                    .cells
                    .get(mapping.file_column)
                    .cloned()
                    .unwrap_or_default(),
                found: found_by_row.get(&row_index).map(|found| (*found).clone()),
                attributes: self
                    .row_attributes(row, mapping)
                    .iter()
                    .map(Attribute::to_string)
                    .collect(),
            })
            .collect();
        let mut warnings = mapping.warnings.clone();
        warnings.extend(matched.warnings.iter().take(LISTED_PROBLEMS).cloned());
        CsvPreview {
            path: self.path.clone(),
            columns,
            rows: self.rows.len(),
            sample,
            matched_files: matched.by_path.len(),
            files_without_row: files.len().saturating_sub(matched.by_path.len()),
            unmatched_count: matched.unmatched_rows.len(),
            unmatched_rows: matched
                .unmatched_rows
                .into_iter()
                .take(LISTED_PROBLEMS)
                .collect(),
            warnings,
        }
    }
}

/// A file cell as a path in the folder: trimmed, `/` separators, no leading `./` or `/`.
fn normalized_file_cell(cell: &str) -> String {
    let unified = cell.trim().replace('\\', "/");
    let mut text = unified.as_str();
    loop {
        if let Some(rest) = text.strip_prefix("./") {
            text = rest;
        } else if let Some(rest) = text.strip_prefix('/') {
            text = rest;
        } else {
            break;
        }
    }
    text.to_owned()
}

/// What a file cell names.
enum Found {
    One(String),
    Several(usize),
    None,
}

/// The scanned files by path and by name, exact and ignoring case.
struct FileIndex<'a> {
    by_path: HashMap<&'a str, &'a str>,
    by_lower_path: HashMap<String, Vec<&'a str>>,
    by_name: HashMap<&'a str, Vec<&'a str>>,
    by_lower_name: HashMap<String, Vec<&'a str>>,
}

impl<'a> FileIndex<'a> {
    fn new(files: &'a [ScannedFile]) -> Self {
        let mut index = Self {
            by_path: HashMap::new(),
            by_lower_path: HashMap::new(),
            by_name: HashMap::new(),
            by_lower_name: HashMap::new(),
        };
        for file in files {
            let relative = file.relative.as_str();
            index.by_path.insert(relative, relative);
            index
                .by_lower_path
                .entry(relative.to_lowercase())
                .or_default()
                .push(relative);
            index
                .by_name
                .entry(file.file_name())
                .or_default()
                .push(relative);
            index
                .by_lower_name
                .entry(file.file_name().to_lowercase())
                .or_default()
                .push(relative);
        }
        index
    }

    fn find(&self, key: &str) -> Found {
        if let Some(relative) = self.by_path.get(key) {
            return Found::One((*relative).to_owned());
        }
        let lower = key.to_lowercase();
        let candidates = if key.contains('/') {
            [self.by_lower_path.get(&lower), None]
        } else {
            [self.by_name.get(key), self.by_lower_name.get(&lower)]
        };
        for found in candidates.into_iter().flatten() {
            match found.as_slice() {
                [one] => return Found::One((*one).to_owned()),
                [] => {}
                several => return Found::Several(several.len()),
            }
        }
        Found::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> CsvTable {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("attributes.csv");
        std::fs::write(&path, text).unwrap();
        read_csv(&path, &SyncLimits::default()).unwrap()
    }

    fn files(paths: &[&str]) -> Vec<ScannedFile> {
        paths
            .iter()
            .map(|relative| ScannedFile {
                relative: (*relative).to_owned(),
                path: PathBuf::from(relative),
                size: 2048,
            })
            .collect()
    }

    fn automatic(table: &CsvTable) -> ResolvedMapping {
        table.resolve(&CsvMapping::default()).unwrap()
    }

    #[test]
    fn units_ride_in_headers_and_pipes_split_values() {
        let table = table("file,weight(kg),region,note\nflange.png,1.2,EU|US| ,\n");
        let mapping = automatic(&table);
        assert_eq!(mapping.file_column, 0);
        let matched = table.match_files(&mapping, &files(&["flange.png"]));
        let attributes: Vec<String> = matched.by_path["flange.png"]
            .iter()
            .map(Attribute::to_string)
            .collect();
        assert_eq!(attributes, ["weight(kg)=1.2", "region=EU|US"]);
    }

    #[test]
    fn the_file_column_is_guessed_by_its_header_or_is_the_first() {
        let named = table("material,File Name,weight\nsteel,a.png,1\n");
        assert_eq!(automatic(&named).file_column, 1);
        let unnamed = table("part,material\na.png,steel\n");
        assert_eq!(automatic(&unnamed).file_column, 0);
        let chosen = unnamed
            .resolve(&CsvMapping {
                file_column: Some("material".into()),
                ..CsvMapping::default()
            })
            .unwrap();
        assert_eq!(chosen.file_column, 1);
        assert_eq!(chosen.attributes[0].1, "part");
    }

    #[test]
    fn named_columns_must_exist_and_be_valid_attribute_names() {
        let table = table("file,mat=x,weight\na.png,1,2\n");
        let automatic = automatic(&table);
        assert_eq!(automatic.attributes.len(), 1, "the bad header is left out");
        assert!(
            automatic.warnings[0].contains("mat=x"),
            "{:?}",
            automatic.warnings
        );
        for mapping in [
            CsvMapping {
                attribute_columns: Some(vec!["mat=x".into()]),
                ..CsvMapping::default()
            },
            CsvMapping {
                attribute_columns: Some(vec!["nope".into()]),
                ..CsvMapping::default()
            },
            CsvMapping {
                file_column: Some("nope".into()),
                ..CsvMapping::default()
            },
            CsvMapping {
                attribute_columns: Some(vec!["file".into()]),
                ..CsvMapping::default()
            },
        ] {
            assert!(
                matches!(table.resolve(&mapping), Err(SyncError::Setup(_))),
                "{mapping:?}"
            );
        }
    }

    #[test]
    fn rows_match_by_path_or_by_a_unique_name() {
        let table = table(
            "file,material\n\
             sub/a.png,steel\n\
             B.PNG,brass\n\
             c.png,iron\n\
             missing.png,gold\n\
             ./sub/a.png,again\n\
             ,empty\n",
        );
        let files = files(&["sub/a.png", "b.png", "x/c.png", "y/c.png"]);
        let matched = table.match_files(&automatic(&table), &files);
        assert_eq!(matched.by_path["sub/a.png"][0].values, ["steel"]);
        assert_eq!(matched.by_path["b.png"][0].values, ["brass"]);
        assert_eq!(matched.by_path.len(), 2);
        assert_eq!(matched.unmatched_rows, ["missing.png"]);
        let warnings = matched.warnings.join(" ");
        assert!(warnings.contains("2 files of the folder"), "{warnings}");
        assert!(warnings.contains("line 2 is used"), "{warnings}");
        assert!(warnings.contains("Line 7 has no file name"), "{warnings}");
    }

    #[test]
    fn semicolons_byte_order_marks_and_quotes_are_read() {
        let table = table("\u{feff}file;\"weight(kg)\";note\n\"a;1.png\";\"1,5\";x\n");
        assert_eq!(table.headers, ["file", "weight(kg)", "note"]);
        assert_eq!(table.rows[0].cells, ["a;1.png", "1,5", "x"]);
        assert_eq!(table.rows[0].line, 2);
    }

    #[test]
    fn the_preview_shows_roles_and_sample_rows() {
        let table = table("file,weight(kg),bad(\na.png,2,x\nzz.png,3,y\n");
        let mapping = automatic(&table);
        let preview = table.preview(&mapping, &files(&["a.png", "b.png"]));
        assert_eq!(preview.columns[0].role, ColumnRole::FileName);
        assert_eq!(
            preview.columns[1].role,
            ColumnRole::Attribute {
                name: "weight".into(),
                unit: Some("kg".into())
            }
        );
        assert_eq!(preview.columns[2].role, ColumnRole::Unused);
        assert!(preview.columns[2].problem.is_some());
        assert_eq!(preview.sample[0].found.as_deref(), Some("a.png"));
        assert_eq!(preview.sample[1].found, None);
        assert_eq!(preview.matched_files, 1);
        assert_eq!(preview.files_without_row, 1);
        assert_eq!(preview.unmatched_rows, ["zz.png"]);
        let explicit = mapping.explicit(&table, &table.path);
        assert_eq!(explicit.file_column.as_deref(), Some("file"));
    }

    fn limited(text: &str, limits: SyncLimits) -> SyncError {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.csv");
        std::fs::write(&path, text).unwrap();
        read_csv(&path, &limits).unwrap_err()
    }

    #[test]
    fn a_csv_larger_than_the_limit_is_refused() {
        let error = limited(
            "file,a\nx.png,1\n",
            SyncLimits {
                max_csv_bytes: 10,
                ..SyncLimits::default()
            },
        );
        assert!(
            error.to_string().contains("larger than 10 bytes"),
            "{error}"
        );
    }

    #[test]
    fn more_rows_than_the_limit_are_refused() {
        let text = "file,a\nx.png,1\ny.png,2\nz.png,3\n";
        let error = limited(
            text,
            SyncLimits {
                max_csv_rows: 2,
                ..SyncLimits::default()
            },
        );
        assert!(error.to_string().contains("more than 2 rows"), "{error}");
    }

    #[test]
    fn more_columns_than_the_limit_are_refused() {
        let header = limited(
            "file,a,b,c\n",
            SyncLimits {
                max_csv_columns: 3,
                ..SyncLimits::default()
            },
        );
        assert!(
            header.to_string().contains("4 columns, more than 3"),
            "{header}"
        );
        let row = limited(
            "file,a\nx.png,1,2,3\n",
            SyncLimits {
                max_csv_columns: 3,
                ..SyncLimits::default()
            },
        );
        assert!(row.to_string().contains("line 2"), "{row}");
    }

    #[test]
    fn cells_longer_than_the_limit_are_refused() {
        let error = limited(
            "file,a\nx.png,123456\n",
            SyncLimits {
                max_csv_cell_chars: 5,
                ..SyncLimits::default()
            },
        );
        assert!(error.to_string().contains("cell 2 of line 2"), "{error}");
    }

    #[test]
    fn text_that_is_not_utf8_is_named_by_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.csv");
        std::fs::write(&path, b"file,a\nx.png,\xff\n").unwrap();
        let error = read_csv(&path, &SyncLimits::default()).unwrap_err();
        assert!(error.to_string().contains("line 2 is not UTF-8"), "{error}");
    }
}
