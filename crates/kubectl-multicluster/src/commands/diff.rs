//! `diff TYPE/NAME --revision A..B`: two revisions of an object as a unified YAML diff.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, anyhow, bail};
use mc_types::history::{ChangeType, RevisionItem};
use serde_json::Value;

use super::history::revisions;
use crate::cli::DiffArgs;
use crate::client::Client;
use crate::print;

/// Fields the API server changes with every write: left out of both sides.
const BOOKKEEPING: &[&str] = &["resourceVersion", "generation", "managedFields"];

/// Runs `diff`.
pub async fn run(client: &Client, args: DiffArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let (older, newer) = pick(client, &args).await?;
    let text = |r: &RevisionItem| -> Result<String> {
        let mut object = r.object.clone().ok_or_else(|| anyhow!("revision {} has no object", r.revision))?;
        if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            for field in BOOKKEEPING {
                meta.remove(*field);
            }
        }
        Ok(print::to_yaml(&object)?)
    };
    let (a, b) = (text(&older)?, text(&newer)?);
    if a == b {
        eprintln!("revisions {} and {} do not differ", older.revision, newer.revision);
        return Ok(ExitCode::SUCCESS);
    }
    let diff = similar::TextDiff::from_lines(&a, &b);
    let label = |r: &RevisionItem| {
        let at = if r.namespace.is_empty() { String::new() } else { format!("{}/", r.namespace) };
        format!(
            "{}/{at}{} revision {} ({} {})",
            r.cluster_name,
            r.name,
            r.revision,
            r.change.as_str(),
            r.time
        )
    };
    write!(out, "{}", diff.unified_diff().context_radius(3).header(&label(&older), &label(&newer)))?;
    Ok(ExitCode::SUCCESS)
}

/// The two revisions to compare, older first, with their objects.
async fn pick(client: &Client, args: &DiffArgs) -> Result<(RevisionItem, RevisionItem)> {
    let asked = args.revision.as_deref().map(parse_revisions).transpose()?;
    if let Some((Some(a), b)) = asked {
        let found = revisions(client, &args.object, None, true, Some(&[a, b])).await?;
        let get = |id: i64| {
            found.iter().find(|r| r.revision == id).cloned().ok_or_else(|| {
                anyhow!(
                    "revision {id} is not a revision of {} (see kubectl multicluster history)",
                    args.object.target
                )
            })
        };
        let (a, b) = (get(a)?, get(b)?);
        return Ok(if a.revision <= b.revision { (a, b) } else { (b, a) });
    }
    // The revision before B (or the last two): from the object's history.
    let all =
        revisions(client, &args.object, Some(mc_types::history::MAX_HISTORY_LIMIT), false, None).await?;
    let newer = match asked {
        Some((_, b)) => all.iter().find(|r| r.revision == b).ok_or_else(|| {
            anyhow!(
                "revision {b} is not a revision of {} (see kubectl multicluster history)",
                args.object.target
            )
        })?,
        None => {
            let objects: std::collections::BTreeSet<(&str, &str)> =
                all.iter().map(|r| (r.cluster_name.as_str(), r.uid.as_str())).collect();
            if objects.len() > 1 {
                bail!(
                    "{} has revisions in {} objects (clusters or namespaces): name the revisions with --revision A..B, or narrow with --cluster and -n",
                    args.object.target,
                    objects.len()
                );
            }
            all.iter().filter(|r| r.change != ChangeType::Deleted).max_by_key(|r| r.revision).ok_or_else(
                || anyhow!("{} has no revision (see kubectl multicluster history)", args.object.target),
            )?
        }
    };
    let older = all
        .iter()
        .filter(|r| r.cluster_name == newer.cluster_name && r.uid == newer.uid && r.revision < newer.revision)
        .max_by_key(|r| r.revision)
        .ok_or_else(|| {
            anyhow!(
                "revision {} is the first revision kept of its object: nothing to compare it with",
                newer.revision
            )
        })?;
    let ids = [older.revision, newer.revision];
    let both = revisions(client, &args.object, None, true, Some(&ids)).await?;
    let get = |id: i64| {
        both.iter()
            .find(|r| r.revision == id)
            .cloned()
            .ok_or_else(|| anyhow!("revision {id} is gone (pruned?)"))
    };
    Ok((get(ids[0])?, get(ids[1])?))
}

/// `A..B` → (A, B); `B` → (None, B).
fn parse_revisions(text: &str) -> Result<(Option<i64>, i64)> {
    let number = |s: &str| {
        s.trim().parse::<i64>().ok().filter(|n| *n > 0).ok_or_else(|| {
            anyhow!(
                "--revision takes A..B or B, revision numbers from kubectl multicluster history; got {text:?}"
            )
        })
    };
    match text.split_once("..") {
        Some((a, b)) => Ok((Some(number(a)?), number(b)?)),
        None => Ok((None, number(text)?)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn revisions_are_a_range_or_one() {
        assert_eq!(parse_revisions("12..15").unwrap(), (Some(12), 15));
        assert_eq!(parse_revisions("15").unwrap(), (None, 15));
        for bad in ["", "a..b", "1..", "..2", "0", "-1", "1...2"] {
            assert!(parse_revisions(bad).is_err(), "{bad}");
        }
    }
}
