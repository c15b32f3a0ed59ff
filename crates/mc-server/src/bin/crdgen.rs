//! Writes `deploy/crds/*.yaml` from the Rust types in `mc_types::crd`.

fn main() -> anyhow::Result<()> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/crds");
    std::fs::create_dir_all(&dir)?;
    for (file, crd) in mc_types::crd::crds() {
        std::fs::write(dir.join(file), mc_types::crd::crd_yaml(&crd)?)?;
        println!("wrote deploy/crds/{file}");
    }
    Ok(())
}
