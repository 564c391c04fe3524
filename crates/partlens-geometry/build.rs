//! Build script: does nothing unless the `occt` feature is on. With it, compiles the C++ shim
//! (`src/occt/occt_shim.cpp` for shapes, `src/occt/occt_assembly.cpp` for assemblies' product
//! trees through XCAF, `src/occt/occt_common.hpp` shared) with the `cc` crate and links it,
//! dynamically, to the system's OpenCASCADE 7.4–7.7 libraries (Debian/Ubuntu: `apt-get install
//! libocct-data-exchange-dev`, which brings `libocct-ocaf-dev` for XCAF's document framework).
//!
//! Debian's OpenCASCADE packages ship CMake files but no pkg-config file, so the headers and
//! libraries are found in this order: `OCCT_INCLUDE_DIR` / `OCCT_LIB_DIR` from the environment,
//! then pkg-config's `opencascade` module where a distribution ships one, then the usual system
//! places (`/usr/include/opencascade`, the multiarch library folder, `/usr/lib64`, `/usr/lib`,
//! `/usr/local`). The version is read from `Standard_Version.hxx`: 7.8 renamed the libraries
//! (`TKDESTEP`…), so it is refused with a sentence instead of failing at link time.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "occt")]
    occt::build();
}

#[cfg(feature = "occt")]
mod occt {
    use std::path::{Path, PathBuf};

    /// The OpenCASCADE libraries the shim's symbols live in (each pulls in its own dependencies).
    const LIBRARIES: &[&str] = &[
        "TKernel",
        "TKMath",
        "TKG2d",
        "TKG3d",
        "TKGeomBase",
        "TKBRep",
        "TKTopAlgo",
        "TKShHealing",
        "TKMesh",
        "TKXSBase",
        "TKSTEPBase",
        "TKSTEP",
        "TKIGES",
        // XCAF: the document framework (TDF labels, names, documents) and the STEP reader into it.
        "TKCDF",
        "TKLCAF",
        "TKCAF",
        "TKXCAF",
        "TKXDESTEP",
    ];

    /// The shim's C++ files.
    const SOURCES: &[&str] = &["src/occt/occt_shim.cpp", "src/occt/occt_assembly.cpp"];

    pub fn build() {
        for file in SOURCES.iter().chain(&["src/occt/occt_common.hpp"]) {
            println!("cargo:rerun-if-changed={file}");
        }
        println!("cargo:rerun-if-env-changed=OCCT_INCLUDE_DIR");
        println!("cargo:rerun-if-env-changed=OCCT_LIB_DIR");
        let (include, libraries) = match locate() {
            Ok(found) => found,
            Err(why) => fail(&why),
        };
        if let Err(why) = check_version(&include) {
            fail(&why);
        }
        cc::Build::new()
            .cpp(true)
            .std("c++17")
            .include(&include)
            .files(SOURCES)
            // OpenCASCADE's own headers warn about deprecated members; they are not ours to fix.
            .flag_if_supported("-Wno-deprecated-declarations")
            .compile("partlens_occt_shim");
        println!("cargo:rustc-link-search=native={}", libraries.display());
        for library in LIBRARIES {
            println!("cargo:rustc-link-lib=dylib={library}");
        }
    }

    /// Stops the build with a sentence on what to install or set.
    fn fail(why: &str) -> ! {
        println!(
            "cargo:warning=the occt feature needs OpenCASCADE 7.4-7.7: {why}. On Debian or Ubuntu: \
             apt-get install libocct-data-exchange-dev; elsewhere set OCCT_INCLUDE_DIR and OCCT_LIB_DIR"
        );
        eprintln!("the occt feature needs OpenCASCADE 7.4-7.7: {why}");
        std::process::exit(1);
    }

    /// The folders of the headers and of the libraries.
    fn locate() -> Result<(PathBuf, PathBuf), String> {
        let from_environment = |name: &str| std::env::var_os(name).map(PathBuf::from);
        if let (Some(include), Some(libraries)) = (
            from_environment("OCCT_INCLUDE_DIR"),
            from_environment("OCCT_LIB_DIR"),
        ) {
            return Ok((include, libraries));
        }
        if let Some(found) = from_pkg_config() {
            return Ok(found);
        }
        let multiarch = format!(
            "/usr/lib/{}-linux-gnu",
            std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default()
        );
        let include = ["/usr/include/opencascade", "/usr/local/include/opencascade"]
            .iter()
            .map(PathBuf::from)
            .find(|folder| folder.join("Standard_Version.hxx").is_file())
            .ok_or("its headers are not in /usr/include/opencascade")?;
        let libraries = [
            multiarch.as_str(),
            "/usr/lib64",
            "/usr/lib",
            "/usr/local/lib",
        ]
        .iter()
        .map(PathBuf::from)
        .find(|folder| folder.join("libTKSTEP.so").exists())
        .ok_or("libTKSTEP.so is not in the usual library folders")?;
        Ok((include, libraries))
    }

    /// Asks pkg-config for an `opencascade` module (some distributions ship one; Debian does not).
    fn from_pkg_config() -> Option<(PathBuf, PathBuf)> {
        let ask = |what: &str| -> Option<String> {
            let output = std::process::Command::new("pkg-config")
                .args([what, "opencascade"])
                .output()
                .ok()?;
            output
                .status
                .success()
                .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
        };
        let first_path = |flags: String, prefix: &str| {
            flags
                .split_whitespace()
                .find_map(|flag| flag.strip_prefix(prefix).map(PathBuf::from))
        };
        let include = first_path(ask("--cflags-only-I")?, "-I")?;
        let libraries = first_path(ask("--libs-only-L")?, "-L")?;
        Some((include, libraries))
    }

    /// Refuses versions whose library names differ from [`LIBRARIES`].
    fn check_version(include: &Path) -> Result<(), String> {
        let header = std::fs::read_to_string(include.join("Standard_Version.hxx"))
            .map_err(|error| format!("Standard_Version.hxx cannot be read: {error}"))?;
        let number = |name: &str| {
            header.lines().find_map(|line| {
                let rest = line.trim().strip_prefix("#define")?.trim();
                let value = rest.strip_prefix(name)?.trim();
                value.parse::<u32>().ok()
            })
        };
        match (number("OCC_VERSION_MAJOR"), number("OCC_VERSION_MINOR")) {
            (Some(7), Some(minor)) if (4..=7).contains(&minor) => Ok(()),
            (Some(major), Some(minor)) => Err(format!("found version {major}.{minor}")),
            _ => Err("its version cannot be read from Standard_Version.hxx".to_owned()),
        }
    }
}
