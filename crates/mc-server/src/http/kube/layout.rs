//! Which columns a Table has: kubectl's, or the plugin's.

/// Which layout a Table has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Layout {
    /// kubectl's: `Name`, `Cluster` (over every cluster), then kubectl's columns with their
    /// priorities.
    #[default]
    Kubectl,
    /// The plugin's `list`: `Cluster`, `Name`, `Namespace`, then the Go project's columns.
    Plugin,
    /// The plugin's `list -o wide`: `Cluster`, `Name`, `Namespace`, then all kubectl columns.
    PluginWide,
}

impl Layout {
    /// The `view` query parameter.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "" | "kubectl" => Some(Layout::Kubectl),
            "plugin" => Some(Layout::Plugin),
            "plugin-wide" => Some(Layout::PluginWide),
            _ => None,
        }
    }
}
