//! The one table renderer: kubectl style, no borders, left-aligned columns separated by three
//! spaces, no trailing whitespace.

use std::io::{self, Write};

/// Space between columns, as kubectl's tabwriter pads.
const GAP: usize = 3;

/// Column widths, grown as rows are seen; also used to keep `--watch` rows in line.
#[derive(Clone, Debug, Default)]
pub struct Widths(Vec<usize>);

impl Widths {
    /// Widths that fit these rows.
    pub fn fit<'a>(rows: impl IntoIterator<Item = &'a Vec<String>>) -> Self {
        let mut widths = Widths::default();
        for row in rows {
            widths.grow(row);
        }
        widths
    }

    /// Widens columns to fit a row.
    pub fn grow(&mut self, row: &[String]) {
        if self.0.len() < row.len() {
            self.0.resize(row.len(), 0);
        }
        for (w, cell) in self.0.iter_mut().zip(row) {
            *w = (*w).max(display_width(cell));
        }
    }

    /// Writes one row padded to these widths.
    pub fn write_row(&self, out: &mut dyn Write, row: &[String]) -> io::Result<()> {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            let cell = clean(cell);
            line.push_str(&cell);
            if i + 1 < row.len() {
                let width = self.0.get(i).copied().unwrap_or(0);
                let pad = width.saturating_sub(display_width(&cell)) + GAP;
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        writeln!(out, "{}", line.trim_end())
    }
}

/// Writes headers and rows aligned.
pub fn write(out: &mut dyn Write, headers: Option<&[String]>, rows: &[Vec<String>]) -> io::Result<()> {
    let headers = headers.map(<[String]>::to_vec);
    let widths = Widths::fit(headers.iter().chain(rows));
    if let Some(h) = &headers {
        widths.write_row(out, h)?;
    }
    for row in rows {
        widths.write_row(out, row)?;
    }
    Ok(())
}

fn display_width(s: &str) -> usize {
    s.chars().count()
}

/// A cell on one line: newlines and tabs become spaces.
fn clean(cell: &str) -> String {
    if cell.contains(['\n', '\r', '\t']) { cell.replace(['\n', '\r', '\t'], " ") } else { cell.to_owned() }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn render(headers: &[&str], rows: &[&[&str]]) -> String {
        let headers: Vec<String> = headers.iter().map(|s| s.to_string()).collect();
        let rows: Vec<Vec<String>> = rows.iter().map(|r| r.iter().map(|s| s.to_string()).collect()).collect();
        let mut out = Vec::new();
        write(&mut out, Some(&headers), &rows).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn columns_are_left_aligned_three_spaces_apart_without_trailing_space() {
        let text =
            render(&["CLUSTER", "NAME", "DATA"], &[&["tencent1", "a", "1"], &["t2", "much-longer", ""]]);
        assert_eq!(
            text,
            "CLUSTER    NAME          DATA\ntencent1   a             1\nt2         much-longer\n"
        );
    }

    #[test]
    fn multi_line_cells_stay_on_one_line() {
        let text = render(&["A", "B"], &[&["x\ny", "z"]]);
        assert_eq!(text, "A     B\nx y   z\n");
    }
}
