# shellcheck shell=bash
# shellcheck disable=SC2034 # every variable here is read by the scripts that source this file
# The versions the scripts pin, in one place (sourced through scripts/lib.sh).

# Kubernetes of the test clusters, built by scripts/testenv (MC_TESTENV_K8S_VERSION overrides it
# there). The k8s-openapi feature in Cargo.toml (`v1_35`) must name the same minor release:
# scripts/test.sh checks that they agree.
K8S_VERSION=v1.35.4
ETCD_VERSION=v3.6.5
KWOK_VERSION=v0.7.0
# k9s browses the clusters through mc-server in the cluster test `k9s` (tests/cluster/k9s.rs).
K9S_VERSION=v0.50.16
# helm renders the chart in deploy/helm for the deployment tests (Debian ships no helm package).
HELM_VERSION=v3.20.2
# schemathesis (from PyPI) for scripts/api/fuzz.sh.
SCHEMATHESIS_VERSION=4.32.5
