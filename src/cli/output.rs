//! Writing reports and baselines to a file (`-o`): never half a file, never
//! a special file replaced, nothing left behind when interrupted.
//!
//! - A regular file (or a new one) is written to a temporary file beside it
//!   and renamed into place; the new file keeps the old one's permissions,
//!   or gets `0666` less the umask, as a shell's `>` would.
//! - A device, FIFO or other special file (`/dev/stdout`, `/dev/null`, a
//!   named pipe) is written in place: renaming over it would replace
//!   `/dev/stdout` with a regular file.
//! - A symlink is followed: the file it points to is written, the link stays.
//! - SIGINT, SIGTERM or SIGHUP while the temporary file exists remove it.

use std::fs::{self, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context as _, Result, bail};

/// The temporary file being written, removed by the signal handler.
static TEMP: Mutex<Option<PathBuf>> = Mutex::new(None);
static HANDLER: std::sync::Once = std::sync::Once::new();
static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Exit status after SIGINT, SIGTERM or SIGHUP (as a shell reports SIGINT).
const INTERRUPTED: i32 = 130;

fn install_handler() {
    HANDLER.call_once(|| {
        // If a handler cannot be installed the default action (exit) stays;
        // only the clean-up of the temporary file is lost.
        let _ = ctrlc::set_handler(|| {
            if let Some(p) = TEMP.lock().unwrap_or_else(|e| e.into_inner()).take() {
                let _ = fs::remove_file(p);
            }
            std::process::exit(INTERRUPTED);
        });
    });
}

/// Writes what `write` produces to `path`, as described in the module docs.
pub fn write_file(path: &Path, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<()> {
    let shown = path.display();
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => match fs::canonicalize(path) {
            Ok(real) => write_file(&real, write),
            // A link to a file that does not exist yet: create it through the link.
            Err(_) => in_place(path, true, write),
        },
        Ok(m) if m.is_dir() => bail!("cannot write {shown}: it is a directory"),
        Ok(m) if !m.is_file() => in_place(path, false, write),
        Ok(m) => atomically(path, Some(m.permissions()), write),
        Err(e) if e.kind() == io::ErrorKind::NotFound => atomically(path, None, write),
        Err(e) => Err(e).with_context(|| format!("cannot write {shown}")),
    }
}

fn in_place(
    path: &Path,
    create: bool,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    let file = OpenOptions::new()
        .write(true)
        .create(create)
        .truncate(create)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let mut w = BufWriter::new(file);
    write(&mut w)
        .and_then(|()| w.flush())
        .with_context(|| format!("cannot write {}", path.display()))
}

fn atomically(
    path: &Path,
    keep: Option<fs::Permissions>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    install_handler();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "report".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(
        ".{name}.toolaudit-{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    // Registered before it exists, so a signal can never leave it behind.
    *TEMP.lock().unwrap_or_else(|e| e.into_inner()) = Some(tmp.clone());
    let result = (|| -> Result<()> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
        set_mode(&file, keep)?;
        let mut w = BufWriter::new(file);
        write(&mut w)
            .and_then(|()| w.flush())
            .with_context(|| format!("cannot write {}", path.display()))?;
        let file = w.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()
            .with_context(|| format!("cannot write {}", path.display()))?;
        drop(file);
        pause_for_tests();
        fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    *TEMP.lock().unwrap_or_else(|e| e.into_inner()) = None;
    result
}

#[cfg(unix)]
fn set_mode(file: &fs::File, keep: Option<fs::Permissions>) -> Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let perms = keep.unwrap_or_else(|| fs::Permissions::from_mode(0o666 & !umask()));
    file.set_permissions(perms)
        .context("cannot set the permissions of the temporary file")
}

#[cfg(not(unix))]
fn set_mode(file: &fs::File, keep: Option<fs::Permissions>) -> Result<()> {
    match keep {
        Some(p) => file
            .set_permissions(p)
            .context("cannot set the permissions of the temporary file"),
        None => Ok(()),
    }
}

/// The process's umask, from `/proc/self/status` where there is one;
/// otherwise the common `022`.
#[cfg(unix)]
fn umask() -> u32 {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
        .unwrap_or(0o022)
}

/// Test hook: hold the finished temporary file for a while, so a test can
/// interrupt the write at its last step.
fn pause_for_tests() {
    if let Some(ms) = std::env::var_os("__TOOLAUDIT_TEST_PAUSE_BEFORE_RENAME_MS")
        .and_then(|v| v.to_str().and_then(|v| v.parse::<u64>().ok()))
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}
