//! Fetching corpus packages with the ordinary package clients, by name, into a cache.
//!
//! Each package lands in its own folder under the cache (`pip/NAME-VERSION`,
//! `npm/NAME-VERSION`, `apt/NAME`), marked complete only once the client and the unpacking
//! succeeded, so an interrupted fetch is simply redone and a finished one is never repeated.
//! No registry address appears here: the clients use the machine's own configuration.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::recipes::Package;

const COMPLETE: &str = ".complete";

/// The download cache.
pub struct Cache {
    root: PathBuf,
}

impl Cache {
    /// A cache rooted at `root` (created on demand).
    pub fn new(root: PathBuf) -> Cache {
        Cache { root }
    }

    /// The folder of a fetched package, fetching it first if needed. For pip the folder holds
    /// the wheel; for npm the unpacked `package/`; for apt the unpacked `root/` of the .deb.
    pub fn get(&self, package: &Package) -> Result<PathBuf> {
        let dir = match (package.client.as_str(), &package.version) {
            ("apt", _) => self.root.join("apt").join(&package.name),
            (client, Some(v)) => self.root.join(client).join(format!("{}-{v}", package.name)),
            (client, None) => self.root.join(client).join(&package.name),
        };
        if dir.join(COMPLETE).is_file() {
            return Ok(dir);
        }
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("clearing {}", dir.display()))?;
        }
        std::fs::create_dir_all(&dir)?;
        match package.client.as_str() {
            "pip" => fetch_pip(package, &dir)?,
            "npm" => fetch_npm(package, &dir)?,
            "apt" => fetch_apt(package, &dir)?,
            other => bail!("unknown package client {other:?} for {}", package.name),
        }
        std::fs::write(dir.join(COMPLETE), b"")?;
        Ok(dir)
    }

    /// True when the package is already in the cache.
    pub fn has(&self, package: &Package) -> bool {
        let dir = match (package.client.as_str(), &package.version) {
            ("apt", _) => self.root.join("apt").join(&package.name),
            (client, Some(v)) => self.root.join(client).join(format!("{}-{v}", package.name)),
            (client, None) => self.root.join(client).join(&package.name),
        };
        dir.join(COMPLETE).is_file()
    }
}

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let out =
        cmd.output().with_context(|| format!("{what}: could not start {:?} (is it installed?)", cmd.get_program()))?;
    if !out.status.success() {
        bail!(
            "{what} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

fn spec(package: &Package, sep: &str) -> String {
    match &package.version {
        Some(v) => format!("{}{sep}{v}", package.name),
        None => package.name.clone(),
    }
}

fn python() -> &'static str {
    if Command::new("python3").arg("--version").output().is_ok() {
        "python3"
    } else {
        "python"
    }
}

fn fetch_pip(package: &Package, dir: &Path) -> Result<()> {
    run(
        Command::new(python())
            .args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet", "-d"])
            .arg(dir)
            .arg(spec(package, "==")),
        &format!("pip download {}", package.name),
    )
}

fn fetch_npm(package: &Package, dir: &Path) -> Result<()> {
    run(
        Command::new("npm").args(["pack", "--silent", "--pack-destination"]).arg(dir).arg(spec(package, "@")),
        &format!("npm pack {}", package.name),
    )?;
    let tgz = find_with_suffix(dir, ".tgz")?;
    run(Command::new("tar").arg("-xzf").arg(&tgz).arg("-C").arg(dir), &format!("unpacking {}", tgz.display()))
}

fn fetch_apt(package: &Package, dir: &Path) -> Result<()> {
    let download = || Command::new("apt-get").args(["download", "-q"]).arg(&package.name).current_dir(dir).output();
    let out = download().context("apt-get is needed to fetch Debian packages")?;
    if !out.status.success() {
        // A fresh machine has no package lists yet: fetch them once and retry.
        eprintln!("apt-get download {} failed; running apt-get update once", package.name);
        run(Command::new("apt-get").args(["update", "-q"]), "apt-get update")?;
        run(
            Command::new("apt-get").args(["download", "-q"]).arg(&package.name).current_dir(dir),
            &format!("apt-get download {}", package.name),
        )?;
    }
    let deb = find_with_suffix(dir, ".deb")?;
    run(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(dir.join("root")), &format!("unpacking {}", deb.display()))
}

/// The single file in `dir` whose name ends with `suffix`.
pub fn find_with_suffix(dir: &Path, suffix: &str) -> Result<PathBuf> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.to_string_lossy().ends_with(suffix) {
            return Ok(path);
        }
    }
    bail!("no *{suffix} in {}", dir.display())
}
