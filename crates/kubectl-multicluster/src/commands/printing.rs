//! How `list` and `list --watch` print, parsed from `-o`, `-L` and `--sort-by` before anything
//! is asked of the server.

use anyhow::{Context as _, Result};

use crate::cli::{ListArgs, OutputFormat};
use crate::print::custom_columns::CustomColumns;
use crate::print::label_columns::LabelColumns;
use crate::print::sort::SortBy;
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
    Table { wide: bool },
    Json,
    Yaml,
    Name,
    Template(Template),
    Columns(CustomColumns),
}

impl Printing {
    /// Parses the output options; a bad template, column or path is a one-line error.
    pub fn new(args: &ListArgs) -> Result<Self> {
        let format = match &args.output {
            None => Format::Table { wide: false },
            Some(OutputFormat::Wide) => Format::Table { wide: true },
            Some(OutputFormat::Json) => Format::Json,
            Some(OutputFormat::Yaml) => Format::Yaml,
            Some(OutputFormat::Name) => Format::Name,
            Some(OutputFormat::JsonPath(t)) => Format::Template(Template::parse(t).context("-o jsonpath")?),
            Some(OutputFormat::CustomColumns(spec)) => Format::Columns(CustomColumns::parse(spec)?),
        };
        let sort_by = args.sort_by.as_deref().map(SortBy::parse).transpose()?;
        Ok(Printing { format, labels: LabelColumns::new(&args.label_columns), sort_by })
    }

    /// Whether only the plain table or names are asked for (what `--watch` can print).
    pub fn suits_watch(&self) -> bool {
        self.sort_by.is_none() && !matches!(self.format, Format::Template(_) | Format::Columns(_))
    }
}
