//! Compiles the vendored Lua 5.4 for the `lua` feature, with its string-hash seed fixed.
//!
//! Lua seeds the hash of its strings from the clock and from addresses (`luai_makeseed` in
//! lstate.c), so the order in which `pairs` visits a table's string keys changes from run to
//! run, and with it any table a script computes through that order. A constant seed makes the
//! order a function of the script alone. mlua's `vendored` build offers no way to set it; the
//! `cc` crate that compiles Lua appends `CFLAGS_<target>` to its flags, so the definition goes
//! there (after whatever the user set), and mlua links the library made here (`external`).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "lua")]
    lua();
}

#[cfg(feature = "lua")]
fn lua() {
    let target = std::env::var("TARGET").expect("cargo sets TARGET");
    let key = format!("CFLAGS_{target}");
    let mut flags = std::env::var(&key).unwrap_or_default();
    flags.push_str(" -Dluai_makeseed(L)=0x53475442u");
    // SAFETY: the build script is single-threaded; cc reads the variable when it compiles.
    unsafe { std::env::set_var(&key, flags.trim_start()) };
    lua_src::Build::new().build(lua_src::Lua54).print_cargo_metadata();
}
