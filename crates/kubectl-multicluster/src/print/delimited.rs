//! `-o csv` and `-o tsv`: the table's columns as delimited text, for spreadsheets and scripts.
//!
//! CSV follows RFC 4180: a field holding a comma, a double quote, CR or LF is put in double
//! quotes, a double quote inside one is doubled, and every record (the last one too) ends with
//! CRLF. Python's `csv` module reads it back cell for cell.
//!
//! TSV has no quoting: a field's tab, line feed, carriage return and backslash are written as
//! `\t`, `\n`, `\r` and `\\` (the escapes of PostgreSQL's text `COPY`), so every record is one
//! line; records end with LF.

use std::io::{self, Write};

/// Which delimited form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delimited {
    /// Comma-separated, RFC 4180.
    Csv,
    /// Tab-separated, escaped.
    Tsv,
}

impl Delimited {
    /// Writes the header (when given) and the rows, one record each.
    pub fn write(
        self,
        out: &mut dyn Write,
        headers: Option<&[String]>,
        rows: &[Vec<String>],
    ) -> io::Result<()> {
        if let Some(headers) = headers {
            self.write_record(out, headers)?;
        }
        for row in rows {
            self.write_record(out, row)?;
        }
        Ok(())
    }

    /// One record.
    pub fn write_record(self, out: &mut dyn Write, fields: &[String]) -> io::Result<()> {
        let mut line = String::new();
        for (i, field) in fields.iter().enumerate() {
            if i > 0 {
                line.push(self.separator());
            }
            match self {
                Delimited::Csv => csv_field(&mut line, field),
                Delimited::Tsv => tsv_field(&mut line, field),
            }
        }
        line.push_str(self.line_end());
        out.write_all(line.as_bytes())
    }

    fn separator(self) -> char {
        match self {
            Delimited::Csv => ',',
            Delimited::Tsv => '\t',
        }
    }

    fn line_end(self) -> &'static str {
        match self {
            Delimited::Csv => "\r\n",
            Delimited::Tsv => "\n",
        }
    }
}

fn csv_field(line: &mut String, field: &str) {
    if field.contains([',', '"', '\r', '\n']) {
        line.push('"');
        line.push_str(&field.replace('"', "\"\""));
        line.push('"');
    } else {
        line.push_str(field);
    }
}

fn tsv_field(line: &mut String, field: &str) {
    for c in field.chars() {
        match c {
            '\\' => line.push_str("\\\\"),
            '\t' => line.push_str("\\t"),
            '\n' => line.push_str("\\n"),
            '\r' => line.push_str("\\r"),
            c => line.push(c),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn render(form: Delimited, headers: Option<&[&str]>, rows: &[&[&str]]) -> String {
        let owned = |r: &[&str]| r.iter().map(|s| s.to_string()).collect::<Vec<String>>();
        let headers = headers.map(owned);
        let rows: Vec<Vec<String>> = rows.iter().map(|r| owned(r)).collect();
        let mut out = Vec::new();
        form.write(&mut out, headers.as_deref(), &rows).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn csv_quotes_only_fields_with_a_comma_quote_cr_or_lf_and_ends_records_with_crlf() {
        let text = render(
            Delimited::Csv,
            Some(&["CLUSTER", "NAME", "DATA"]),
            &[
                &["tencent1", "plain", "1"],
                &["tencent1", "a,b", "say \"hi\""],
                &["tencent2", "two\nlines", "cr\rhere"],
                &["tencent4", "", " spaced "],
            ],
        );
        assert_eq!(
            text,
            "CLUSTER,NAME,DATA\r\ntencent1,plain,1\r\ntencent1,\"a,b\",\"say \"\"hi\"\"\"\r\n\
             tencent2,\"two\nlines\",\"cr\rhere\"\r\ntencent4,, spaced \r\n"
        );
    }

    #[test]
    fn csv_passes_unicode_through_unquoted() {
        let text = render(Delimited::Csv, None, &[&["集群一", "naïve-😀", "日本語,テキスト"]]);
        assert_eq!(text, "集群一,naïve-😀,\"日本語,テキスト\"\r\n");
    }

    #[test]
    fn tsv_escapes_tabs_newlines_and_backslashes_so_each_record_is_one_line() {
        let text = render(
            Delimited::Tsv,
            Some(&["CLUSTER", "NAME"]),
            &[&["tencent1", "a\tb"], &["tencent2", "x\ny\r"], &["tencent4", "C:\\dir, \"q\" é"]],
        );
        assert_eq!(
            text,
            "CLUSTER\tNAME\ntencent1\ta\\tb\ntencent2\tx\\ny\\r\ntencent4\tC:\\\\dir, \"q\" é\n"
        );
    }

    #[test]
    fn without_headers_only_the_rows_are_written() {
        assert_eq!(render(Delimited::Csv, None, &[&["a", "b"]]), "a,b\r\n");
        assert_eq!(render(Delimited::Tsv, None, &[]), "");
    }
}
