use super::*;

#[test]
fn params_are_checked_and_sorted() {
    assert_eq!(
        parse_params("W=3,N=-8").unwrap(),
        [("N".to_string(), Param::Int(-8)), ("W".to_string(), Param::Int(3))]
    );
    for bad in [
        "N",
        "1N=2",
        "N=x",
        "N=1,N=2",
        "N=99999999999999999999",
        "math.x=1",
        "S={1,x}",
        "S={1,2",
        "S=1}",
    ] {
        assert!(parse_params(bad).is_err(), "{bad}");
    }
}

#[test]
fn list_params_keep_their_commas() {
    let p = parse_params("S={2, 5,7},N=4,E={}").unwrap();
    assert_eq!(
        p,
        [
            ("E".to_string(), Param::List(vec![])),
            ("N".to_string(), Param::Int(4)),
            ("S".to_string(), Param::List(vec![2, 5, 7]))
        ]
    );
    let s = Script::with(Lang::Cpp, "sub", "x", p).unwrap();
    assert!(s.canonical().ends_with(":E={},N=4,S={2,5,7}"), "{}", s.canonical());
    assert_eq!(Script::from_canonical(&s.canonical(), "x").unwrap(), s);
    assert_eq!(split_params("a:b/c.cpp:S={1,2},N=3"), Some(("a:b/c.cpp", "S={1,2},N=3")));
}

#[test]
fn canonical_names_round_trip_and_check_the_hash() {
    let s = Script::new("knight", "shape = 4", vec![("N".into(), 8)]).unwrap();
    let c = s.canonical();
    assert!(c.starts_with("lua:knight@") && c.ends_with(":N=8"), "{c}");
    assert_eq!(Script::from_canonical(&c, "shape = 4").unwrap(), s);
    assert!(Script::from_canonical(&c, "shape = 5").unwrap_err().contains("hash"));
    assert_eq!(s.file_name(), format!("lua-knight@{}-N=8.sgt", s.hash()));
}

#[test]
fn names_are_sanitized() {
    assert_eq!(sanitize("my game!"), "my_game_");
    assert_eq!(sanitize(".hidden"), "s.hidden");
    assert!(check_name("../x", "n").is_err() && check_name("a.b-c_1", "n").is_ok());
}
