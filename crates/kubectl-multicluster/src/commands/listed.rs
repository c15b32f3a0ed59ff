//! One type's answer to `list`, before it is printed: printed columns, or objects.

use mc_types::api::ListWithClusterItem;

/// Headers and rows of the printed columns (tables, csv, tsv).
#[derive(Debug, Default)]
pub struct Rows {
    /// The column headers (empty when the server sent none).
    pub headers: Vec<String>,
    /// The cells of each row.
    pub rows: Vec<Vec<String>>,
}

/// One type's answer.
#[derive(Debug)]
pub enum Listed {
    /// The printed columns.
    Rows(Rows),
    /// The objects (json, yaml, name, jsonpath, custom-columns).
    Objects(Vec<ListWithClusterItem>),
}

impl Listed {
    /// How many objects.
    pub fn len(&self) -> usize {
        match self {
            Listed::Rows(rows) => rows.rows.len(),
            Listed::Objects(items) => items.len(),
        }
    }

    /// Whether no object is in it.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps the first `n` objects.
    pub fn truncate(&mut self, n: usize) {
        match self {
            Listed::Rows(rows) => rows.rows.truncate(n),
            Listed::Objects(items) => items.truncate(n),
        }
    }
}

impl Rows {
    /// Writes names as kubectl does when it prints several types: `deployment.apps/web` in the
    /// `NAME` column.
    pub fn prefix_names(&mut self, kind_ref: &str) {
        let Some(index) = self.headers.iter().position(|h| h == "NAME") else { return };
        for row in &mut self.rows {
            if let Some(name) = row.get_mut(index) {
                *name = format!("{kind_ref}/{name}");
            }
        }
    }
}

/// `--limit` over the whole answer: across clusters and types, after sorting.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    /// At most this many objects in all (`None`: all).
    max: Option<u64>,
    /// How many are printed so far.
    taken: u64,
    /// Whether some matching object was left out.
    pub cut: bool,
}

impl Limit {
    /// `--limit N`; 0 or none is all.
    pub fn new(limit: Option<u64>) -> Self {
        Limit { max: limit.filter(|&n| n > 0), taken: 0, cut: false }
    }

    /// How many objects to ask the server for when its order is the printed one: one more than
    /// may still be printed, to know whether the answer is cut.
    pub fn ask(&self) -> Option<u64> {
        self.max.map(|n| n.saturating_sub(self.taken) + 1)
    }

    /// Cuts one type's answer to what may still be printed.
    pub fn apply(&mut self, listed: &mut Listed) {
        let Some(max) = self.max else { return };
        let room = max.saturating_sub(self.taken);
        if listed.len() as u64 > room {
            listed.truncate(usize::try_from(room).unwrap_or(usize::MAX));
            self.cut = true;
        }
        self.taken += listed.len() as u64;
    }

    /// The note for stderr when the answer was cut.
    pub fn note(&self) -> Option<String> {
        let max = self.max.filter(|_| self.cut)?;
        Some(format!("Warning: --limit {max}: only the first {max} objects are printed; more match"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: usize) -> Listed {
        Listed::Rows(Rows {
            headers: vec!["NAME".into()],
            rows: (0..n).map(|i| vec![i.to_string()]).collect(),
        })
    }

    #[test]
    fn the_limit_counts_across_every_answer_and_says_when_it_cut() {
        let mut limit = Limit::new(Some(5));
        assert_eq!(limit.ask(), Some(6), "one more, to know whether more match");
        let mut first = rows(3);
        limit.apply(&mut first);
        assert_eq!((first.len(), limit.cut, limit.ask()), (3, false, Some(3)));
        let mut second = rows(3);
        limit.apply(&mut second);
        assert_eq!((second.len(), limit.cut), (2, true));
        assert_eq!(
            limit.note().as_deref(),
            Some("Warning: --limit 5: only the first 5 objects are printed; more match")
        );
    }

    #[test]
    fn exactly_the_limit_is_not_a_cut_and_no_limit_cuts_nothing() {
        let mut limit = Limit::new(Some(3));
        let mut three = rows(3);
        limit.apply(&mut three);
        assert_eq!((three.len(), limit.note()), (3, None));
        let mut all = Limit::new(None);
        let mut many = rows(50);
        all.apply(&mut many);
        assert_eq!((many.len(), all.ask(), all.note()), (50, None, None));
        assert_eq!(Limit::new(Some(0)).ask(), None, "--limit 0 is all, as the server takes it");
    }

    #[test]
    fn names_take_the_kind_when_several_types_print() {
        let mut rows = Rows {
            headers: vec!["CLUSTER".into(), "NAME".into()],
            rows: vec![vec!["tencent1".into(), "web".into()]],
        };
        rows.prefix_names("deployment.apps");
        assert_eq!(rows.rows, [["tencent1", "deployment.apps/web"]]);
    }
}
