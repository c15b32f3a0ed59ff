//! Writes `deploy/crds/*.yaml` from the Rust types in `mc_types::crd`, and the same files into
//! the Helm chart's `crds/` (Helm installs CRDs only from inside the chart).

fn main() -> anyhow::Result<()> {
    let deploy = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy");
    for dir in ["crds", "helm/kubectl-multicluster/crds"] {
        std::fs::create_dir_all(deploy.join(dir))?;
        for (file, crd) in mc_types::crd::crds() {
            std::fs::write(deploy.join(dir).join(file), mc_types::crd::crd_yaml(&crd)?)?;
            println!("wrote deploy/{dir}/{file}");
        }
    }
    Ok(())
}
