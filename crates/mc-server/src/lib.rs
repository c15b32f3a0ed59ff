//! mc-server: keeps every object of every cluster in a store, serves queries over HTTP and
//! dispatches `MultiClusterResource`s to member clusters.
