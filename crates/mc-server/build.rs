//! The store's migrations are embedded at compile time (`sqlx::migrate!`): a new or changed
//! migration file must rebuild the crate, or a cached build keeps serving the old schema.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
