//! The one listing `list` and `describe` read: from our server as first asked, or from the Go
//! project's server, asked again in its dialect ([`super::query`]). The commands never ask which
//! server answered.

use mc_types::ResourceInfo;

use super::Result;
use super::query::Query;
use super::resolve::Resolver;
use crate::client::{self, Client, ListPage, ListQuery, RawListItem};

/// The answer to a listing from whichever server answered: ours, or the Go project's (asked
/// again in its dialect).
#[derive(Debug)]
pub struct Listing {
    /// The pages as the server sent them.
    pub pages: Vec<ListPage>,
    /// The server's discovery data (ours), or the type resolved here (the Go project's server).
    pub resources: Option<Vec<ResourceInfo>>,
    /// How the Go project's server was asked, when it was.
    pub go_server: Option<Query>,
}

impl Listing {
    /// Settles a listing from the first request (`first`, sent as to our server) and what
    /// `/v1/resources` said: ours answers it and `first` stands; the Go project's server has none
    /// (404) and is asked again in its dialect, unless `first` already was that.
    pub async fn settle(
        client: &Client,
        query: &ListQuery,
        first: client::Result<Vec<ListPage>>,
        resources: client::Result<Option<Vec<ResourceInfo>>>,
        resolver: Resolver,
    ) -> Result<Self> {
        match resources {
            Ok(None) => {
                let go_query = Query::new(query, resolver).await?;
                // The Go project's server sends no `continue` header, so `list_pages` asks once.
                let pages = if go_query.is_same_request(query) {
                    first?
                } else {
                    client.list_pages(&go_query.query).await?
                };
                let resources = go_query.info.clone().map(|info| vec![info]);
                Ok(Listing { pages, resources, go_server: Some(go_query) })
            }
            resources => Ok(Listing { pages: first?, resources: resources.ok().flatten(), go_server: None }),
        }
    }

    /// Adds the same listing in more clusters, one request each in the order given, because the
    /// server takes one `cluster=` per request.
    pub async fn add_clusters(
        &mut self,
        client: &Client,
        query: &ListQuery,
        clusters: &[String],
    ) -> Result<()> {
        let sent = self.go_server.as_ref().map_or(query, |o| &o.query);
        let queries: Vec<ListQuery> =
            clusters.iter().map(|c| ListQuery { cluster: Some(c.clone()), ..sent.clone() }).collect();
        let answers = futures::future::try_join_all(queries.iter().map(|q| client.list_pages(q))).await?;
        self.pages.extend(answers.into_iter().flatten());
        Ok(())
    }

    /// Every item of every page (those the selectors pass, for the Go project's server).
    pub fn items(&self) -> Result<Vec<RawListItem<'_>>> {
        let mut raw = Vec::new();
        for page in &self.pages {
            raw.extend(page.parse::<RawListItem<'_>>()?);
        }
        match &self.go_server {
            Some(go_query) => go_query.select(raw),
            None => Ok(raw),
        }
    }
}
