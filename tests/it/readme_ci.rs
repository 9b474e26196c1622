//! README's list of what `.ci/run` installs is the scripts' own list: every Debian package a
//! CI script installs (`need+=(PKG)`, `interop_install PKG...`, `apt-get install ... PKG`)
//! is named in README's "Tests" section, so a newcomer installing by hand misses nothing.

use std::path::Path;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The packages one script installs.
fn packages(script: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in script.lines().map(str::trim) {
        if line.starts_with('#') {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("need+=(") {
            rest = &rest[i + "need+=(".len()..];
            let end = rest.find(')').unwrap_or(rest.len());
            found.extend(rest[..end].split_whitespace().map(str::to_string));
        }
        for marker in ["interop_install ", "--no-install-recommends "] {
            if let Some(i) = line.find(marker) {
                // The words up to the first that is not a package name (`>/dev/null`,
                // `"${need[@]}"`); `buildah);` ends the list too, with its name kept.
                for word in line[i + marker.len()..].split_whitespace() {
                    let name = word.trim_end_matches([')', ';']);
                    if name.is_empty()
                        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                    {
                        break;
                    }
                    found.push(name.to_string());
                    if name.len() != word.len() {
                        break;
                    }
                }
            }
        }
    }
    found
}

#[test]
fn readme_names_every_package_ci_installs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = read(&root.join("README.md"));
    let tests = readme
        .split("\n## Tests")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("README.md has a \"## Tests\" section");
    let mut scripts = vec![root.join(".ci/run")];
    for dir in [".ci", ".ci/interop"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "sh") {
                scripts.push(path);
            }
        }
    }
    let mut all = Vec::new();
    for script in &scripts {
        for pkg in packages(&read(script)) {
            all.push(pkg.clone());
            assert!(
                tests.contains(&format!("`{pkg}`")),
                "{} installs `{pkg}`: README.md's Tests section does not name it",
                script.display()
            );
        }
    }
    // The parse finds what it should: a package .ci/run and one an interop script installs.
    assert!(all.iter().any(|p| p == "prometheus"), "{all:?}");
    assert!(all.iter().any(|p| p == "mvdsv"), "{all:?}");
}
