//! How `list` and `list --watch` print, parsed from `-o`, `-L` and `--sort-by` before anything
//! is asked of the server.

use std::io::{self, Write};

use anyhow::{Context as _, Result, bail};

use crate::cli::{ListArgs, OutputFormat};
use crate::print::custom_columns::CustomColumns;
use crate::print::delimited::Delimited;
use crate::print::label_columns::LabelColumns;
use crate::print::sort::SortBy;
use crate::print::table;
use crate::print::template::Template;

/// How `list` prints, parsed from `-o`, `-L` and `--sort-by` before anything is asked.
#[derive(Debug)]
pub struct Printing {
    /// `-o`.
    pub(crate) format: Format,
    /// `-L`: label columns added to tables.
    pub labels: LabelColumns,
    /// `--sort-by`.
    pub(crate) sort_by: Option<SortBy>,
}

/// The `-o` forms.
#[derive(Debug)]
pub(crate) enum Format {
    /// The printed columns: as a table, CSV or TSV.
    Table {
        wide: bool,
        layout: Layout,
    },
    Json,
    Yaml,
    Name,
    Template(Template),
    Columns(CustomColumns),
}

/// How the printed columns are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// kubectl's aligned table.
    Aligned,
    /// `-o csv`, `-o tsv`.
    Delimited(Delimited),
}

impl Layout {
    /// Writes the headers (when given) and rows.
    pub(crate) fn write(
        self,
        out: &mut dyn Write,
        headers: Option<&[String]>,
        rows: &[Vec<String>],
    ) -> io::Result<()> {
        match self {
            Layout::Aligned => table::write(out, headers, rows),
            Layout::Delimited(form) => form.write(out, headers, rows),
        }
    }
}

impl Printing {
    /// Parses the output options; a bad template, column or path is a one-line error.
    pub fn new(args: &ListArgs) -> Result<Self> {
        let table = |wide, layout| Format::Table { wide, layout };
        let format = match &args.output {
            None => table(false, Layout::Aligned),
            Some(OutputFormat::Wide) => table(true, Layout::Aligned),
            Some(OutputFormat::Csv) => table(false, Layout::Delimited(Delimited::Csv)),
            Some(OutputFormat::Tsv) => table(false, Layout::Delimited(Delimited::Tsv)),
            Some(OutputFormat::Json) => Format::Json,
            Some(OutputFormat::Yaml) => Format::Yaml,
            Some(OutputFormat::Name) => Format::Name,
            Some(OutputFormat::JsonPath(t)) => Format::Template(Template::parse(t).context("-o jsonpath")?),
            Some(OutputFormat::CustomColumns(spec)) => Format::Columns(CustomColumns::parse(spec)?),
        };
        let sort_by = args.sort_by.as_deref().map(SortBy::parse).transpose()?;
        if let (Some(SortBy::Column(name)), false) = (&sort_by, matches!(format, Format::Table { .. })) {
            bail!(
                "--sort-by {name:?} sorts by a printed column, and only tables, csv and tsv print columns: \
                 sort by a JSONPath instead (--sort-by .metadata.name)"
            );
        }
        Ok(Printing { format, labels: LabelColumns::new(&args.label_columns), sort_by })
    }

    /// Whether only the plain table or names are asked for (what `--watch` can print).
    pub fn suits_watch(&self) -> bool {
        self.sort_by.is_none()
            && !matches!(
                self.format,
                Format::Template(_) | Format::Columns(_) | Format::Table { layout: Layout::Delimited(_), .. }
            )
    }

    /// The rows' layout, when this prints rows.
    pub(crate) fn layout(&self) -> Option<Layout> {
        match self.format {
            Format::Table { layout, .. } => Some(layout),
            _ => None,
        }
    }
}
