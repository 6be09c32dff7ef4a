//! Compiles the vendored Lua 5.4 for the `lua` feature, with its string-hash seed fixed.
//!
//! Lua seeds the hash of its strings from the clock and from addresses (`luai_makeseed` in
//! lstate.c), so the order in which `pairs` visits a table's string keys changes from run to
//! run, and with it any table a script computes through that order. A constant seed makes the
//! order a function of the script alone. mlua's `vendored` build offers no way to set it; the
//! `cc` crate that compiles Lua appends `CFLAGS_<target>` to its flags, so the definition goes
//! there (after whatever the user set), and mlua links the library made here (`external`).
//!
//! `-falign-functions=64` starts every Lua function on a 64-byte line, so that the interpreter
//! loop's branch targets fall at the same places in every build of sgtab: at GCC's default
//! (16 bytes) they moved with whatever Rust code was linked before them, and the same Lasker's
//! Nim script ran 8% slower in one build than in the one before, for no change of its own
//! (measured: 0.84 s and 0.78 s, then 0.73 s aligned).

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
    flags.push_str(" -Dluai_makeseed(L)=0x53475442u -falign-functions=64");
    // SAFETY: the build script is single-threaded; cc reads the variable when it compiles.
    unsafe { std::env::set_var(&key, flags.trim_start()) };
    lua_src::Build::new().build(lua_src::Lua54).print_cargo_metadata();
}
