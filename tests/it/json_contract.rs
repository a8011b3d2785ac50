//! Every JSON object the binary prints, in every shape it takes, against the committed
//! schema of its kind (formats/schemas/), with the version fields and string seeds.

use crate::common::{data, nq, run};
use serde_json::Value;

/// The committed schema `name`.
fn schema(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("formats/schemas")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Checks `v` against `s` (the parts of JSON Schema that schemars emits: `$ref`, `type`,
/// `properties`, `required`, `enum`, `const`, `oneOf`, `anyOf`, `items`, `prefixItems`,
/// `minItems`, `maxItems`, `minimum`, and the decimal-string pattern); returns what is
/// wrong, with the JSON path.
fn check(root: &Value, s: &Value, v: &Value, at: &str) -> Result<(), String> {
    if let Some(r) = s["$ref"].as_str() {
        let name = r.strip_prefix("#/$defs/").expect("local references only");
        check(root, &root["$defs"][name], v, at)?;
    }
    if let Some(types) = s.get("type") {
        let types: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().map(|t| t.as_str().unwrap()).collect(),
            _ => panic!("bad type in schema"),
        };
        let ok = types.iter().any(|t| match *t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "integer" => v.is_u64() || v.is_i64(),
            "number" => v.is_number(),
            "boolean" => v.is_boolean(),
            "null" => v.is_null(),
            other => panic!("type {other}"),
        });
        if !ok {
            return Err(format!("{at}: {v} is not of type {types:?}"));
        }
    }
    if let Some(c) = s.get("const")
        && c != v
    {
        return Err(format!("{at}: {v} is not {c}"));
    }
    if let Some(e) = s["enum"].as_array()
        && !e.contains(v)
    {
        return Err(format!("{at}: {v} is not one of {e:?}"));
    }
    for (key, exactly_one) in [("oneOf", true), ("anyOf", false)] {
        if let Some(options) = s[key].as_array() {
            let fits = options
                .iter()
                .filter(|o| check(root, o, v, at).is_ok())
                .count();
            if fits == 0 || (exactly_one && fits > 1) {
                return Err(format!("{at}: {v} fits {fits} of the {key} options"));
            }
        }
    }
    if let Some(min) = s["minimum"].as_f64()
        && v.as_f64().is_some_and(|x| x < min)
    {
        return Err(format!("{at}: {v} is below {min}"));
    }
    if let Some(p) = s["pattern"].as_str() {
        assert_eq!(p, "^[0-9]+$", "the only pattern the records use");
        let t = v.as_str().unwrap_or_default();
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("{at}: {v} is not a decimal string"));
        }
    }
    if let Value::Object(map) = v {
        if let Some(required) = s["required"].as_array() {
            for r in required {
                if !map.contains_key(r.as_str().unwrap()) {
                    return Err(format!("{at}: {r} is missing"));
                }
            }
        }
        if let Some(props) = s["properties"].as_object() {
            for (k, x) in map {
                match props.get(k) {
                    Some(p) => check(root, p, x, &format!("{at}.{k}"))?,
                    // Only where the schema lists properties: every field is documented.
                    None if s.get("oneOf").is_none() => {
                        return Err(format!("{at}: {k} is not in the schema"));
                    }
                    None => {}
                }
            }
        }
    }
    if let Value::Array(items) = v {
        if let Some(n) = s["minItems"].as_u64()
            && (items.len() as u64) < n
        {
            return Err(format!("{at}: fewer than {n} items"));
        }
        if let Some(n) = s["maxItems"].as_u64()
            && (items.len() as u64) > n
        {
            return Err(format!("{at}: more than {n} items"));
        }
        let prefix = s["prefixItems"].as_array().cloned().unwrap_or_default();
        for (i, x) in items.iter().enumerate() {
            let item = prefix.get(i).or(s.get("items"));
            if let Some(item) = item {
                check(root, item, x, &format!("{at}[{i}]"))?;
            }
        }
    }
    Ok(())
}

/// Parses every non-empty line of `out` and checks it against the schema `name`.
fn conforms(name: &str, out: &str) -> Vec<Value> {
    let root = schema(name);
    let lines: Vec<Value> = out
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert!(!lines.is_empty(), "no JSON in {out:?}");
    for v in &lines {
        if let Err(e) = check(&root, &root, v, "$") {
            panic!("{name}: {e}\n{v}");
        }
        assert_eq!(v["schema_version"], 1, "{v}");
        assert_eq!(v["nqueens_version"], env!("CARGO_PKG_VERSION"), "{v}");
    }
    lines
}

#[test]
fn the_validator_catches_what_it_should() {
    let root = schema("count.schema.json");
    let (_, out, _) = run(&["count", "8", "--json"]);
    let good: Value = serde_json::from_str(out.trim()).unwrap();
    assert!(check(&root, &root, &good, "$").is_ok());
    for (key, bad) in [
        ("placements", serde_json::json!(92)),
        ("piece", serde_json::json!("king")),
        ("shard", serde_json::json!([0, 1, 2])),
        ("stray", serde_json::json!(1)),
    ] {
        let mut v = good.clone();
        v[key] = bad;
        assert!(check(&root, &root, &v, "$").is_err(), "{key} accepted");
    }
    let mut v = good.clone();
    v.as_object_mut().unwrap().remove("engine");
    assert!(
        check(&root, &root, &v, "$").is_err(),
        "a missing field accepted"
    );
}

#[test]
fn verify_and_info_objects_follow_their_schemas() {
    let d = tempfile::tempdir().unwrap();
    let good = d.path().join("good.txt");
    let bad = d.path().join("bad.txt");
    let part = d.path().join("part.txt");
    let broken = d.path().join("broken.nqb");
    std::fs::write(&good, "2 4 1 3\n").unwrap();
    std::fs::write(&bad, "1 2 9 4\n").unwrap();
    std::fs::write(&part, "2 0 0 0\n").unwrap();
    std::fs::write(&broken, b"NQB1 truncated").unwrap();
    let s = d.path().join("s.zst");
    nq(&[
        "generate",
        "solution",
        "--n",
        "1000",
        "-o",
        s.to_str().unwrap(),
    ])
    .ok();
    let files = [&good, &bad, &part, &broken, &s];
    let mut args = vec!["verify", "--json", "--require-complete"];
    args.extend(files.iter().map(|p| p.to_str().unwrap()));
    let (_, out, _) = run(&args);
    let lines = conforms("verify.schema.json", &out);
    let statuses: Vec<&str> = lines
        .iter()
        .map(|v| v["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["solution", "invalid", "incomplete", "error", "solution"]
    );

    let mut args = vec!["info", "--json"];
    args.extend(files.iter().map(|p| p.to_str().unwrap()));
    let (_, out, _) = run(&args);
    let lines = conforms("info.schema.json", &out);
    assert_eq!(
        lines.len(),
        4,
        "the unreadable file is reported on stderr: {out}"
    );
    assert!(lines.iter().any(|v| v["encoding"] == "zstd"));
}

#[test]
fn complete_objects_and_certificates_follow_their_schemas() {
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("o.txt");
    let (code, out, err) = run(&[
        "complete",
        data("grigoryan-n100-k92.txt").to_str().unwrap(),
        "--json",
        "--seed",
        "11065078150936984365",
    ]);
    let _ = (code, err);
    let v = &conforms("complete.schema.json", &out)[0];
    // The seed survives readers that hold numbers as doubles.
    assert_eq!(v["seed"], "11065078150936984365");

    // Solved, with the output named.
    let s = d.path().join("s.txt");
    std::fs::write(&s, "0 0 0 0 0 0 0 0\n").unwrap();
    let (code, out, err) = run(&[
        "complete",
        s.to_str().unwrap(),
        "-o",
        o.to_str().unwrap(),
        "--json",
        "--seed",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = &conforms("complete.schema.json", &out)[0];
    assert_eq!(v["answer"], "solved");
    assert_eq!(v["seed"], "3");

    // Infeasible, with the certificate document.
    let cert = d.path().join("why.json");
    let (code, out, err) = run(&[
        "complete",
        data("grigoryan-n100-k92.txt").to_str().unwrap(),
        "--json",
        "--certificate",
        cert.to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{err}");
    let v = &conforms("complete.schema.json", &out)[0];
    assert_eq!(v["answer"], "infeasible");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&cert).unwrap()).unwrap();
    conforms("certificate.schema.json", &doc.to_string());
}

#[test]
fn count_objects_follow_their_schemas() {
    let d = tempfile::tempdir().unwrap();
    let (_, out, _) = run(&[
        "count",
        "--range",
        "4..7",
        "--json",
        "--distinct",
        "--orders",
    ]);
    assert_eq!(conforms("count.schema.json", &out).len(), 4);
    let (_, out, _) = run(&["count", "8", "--json", "--place", "1:1,2:2"]);
    let v = &conforms("count.schema.json", &out)[0];
    assert_eq!(v["conflict"], serde_json::json!([[1, 1], [2, 2]]));
    let ck = d.path().join("c.json");
    let (_, out, _) = run(&["count", "9", "--json", "--checkpoint", ck.to_str().unwrap()]);
    let v = &conforms("count.schema.json", &out)[0];
    assert!(v["resumed_items"].is_u64());

    let (_, out, _) = run(&["count", "8", "--first", "--json"]);
    assert!(conforms("count-first.schema.json", &out)[0]["first"].is_array());
    let (code, out, _) = run(&["count", "3", "--first", "--json"]);
    assert_eq!(code, 3);
    assert!(conforms("count-first.schema.json", &out)[0]["first"].is_null());

    // Shards and their merge.
    let mut shards = Vec::new();
    for i in 0..3 {
        let (_, out, _) = run(&["count", "10", "--shard", &format!("{i}/3"), "--json"]);
        let p = d.path().join(format!("s{i}.json"));
        std::fs::write(&p, &out).unwrap();
        shards.push(p);
    }
    let mut args = vec!["count", "merge", "--json"];
    args.extend(shards.iter().map(|p| p.to_str().unwrap()));
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v = &conforms("count.schema.json", &out)[0];
    assert_eq!(v["placements"], "724");

    // A shard of another version is refused, by name.
    let text = std::fs::read_to_string(&shards[2]).unwrap();
    let mut record: nqueens::json::CountRecord = serde_json::from_str(text.trim()).unwrap();
    record.versions.nqueens_version = "0.0.1".into();
    std::fs::write(&shards[2], serde_json::to_string(&record.sealed()).unwrap()).unwrap();
    let (code, _, err) = run(&args);
    assert_eq!(code, 2);
    assert!(err.contains("nqueens 0.0.1"), "{err}");
}

/// `complete --json` carries the solution of a small board, with or without `-o` (read back
/// from the file written, in any format), and it is the file's.
#[test]
fn complete_json_carries_the_solution_of_a_small_board() {
    let d = tempfile::tempdir().unwrap();
    let input = data("grigoryan-n100-k47.txt");
    let (code, out, err) = run(&["complete", input.to_str().unwrap(), "--json", "--seed", "1"]);
    assert_eq!(code, 0, "{err}");
    let v = &conforms("complete.schema.json", &out)[0];
    let shown: Vec<u64> = v["solution"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(shown.len(), 100);
    for ext in ["txt", "npy", "nqb"] {
        let o = d.path().join(format!("s.{ext}"));
        let (code, out, err) = run(&[
            "complete",
            input.to_str().unwrap(),
            "--json",
            "--seed",
            "1",
            "-o",
            o.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        let v = &conforms("complete.schema.json", &out)[0];
        let (code, text, _) = run(&["convert", o.to_str().unwrap(), "-", "--to", "text"]);
        assert_eq!(code, 0);
        let written: Vec<u64> = text
            .split_whitespace()
            .map(|t| t.parse().unwrap())
            .collect();
        let carried: Vec<u64> = v["solution"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        assert_eq!(carried, written, "{ext}");
        assert_eq!(carried, shown, "the same seed, the same solution ({ext})");
    }
}
