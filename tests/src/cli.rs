//! A command-line program run as a script runs it: arguments (and input) in, the exit status
//! and both outputs back as text. The CLI tests of `native-probe` all go through [`Cli`].

use std::{
    ffi::OsStr,
    io::{Read, Write},
    path::PathBuf,
    process::{Child, Command, ExitStatus, Output, Stdio},
};

use serde_json::Value;

/// A program to run, e.g. `Cli::new(env!("CARGO_BIN_EXE_native-probe"))`.
#[derive(Debug, Clone)]
pub struct Cli {
    binary: PathBuf,
}

/// What one run printed and how it exited.
#[derive(Debug)]
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Cli {
    pub fn new(binary: impl Into<PathBuf>) -> Cli {
        Cli {
            binary: binary.into(),
        }
    }

    /// The program with `args`, for a run this harness does not cover.
    pub fn command<S: AsRef<OsStr>>(&self, args: impl IntoIterator<Item = S>) -> Command {
        let mut command = Command::new(&self.binary);
        command.args(args);
        command
    }

    /// Runs the program with `args` and no input.
    pub fn run<S: AsRef<OsStr>>(&self, args: impl IntoIterator<Item = S>) -> Run {
        let output = self
            .command(args)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.binary.display()));
        Run::of(output)
    }

    /// Runs the program with `args`, writing `input` to its stdin and then closing it.
    pub fn run_with_input<S: AsRef<OsStr>>(
        &self,
        args: impl IntoIterator<Item = S>,
        input: &[u8],
    ) -> Run {
        let mut child = self.spawn(args, Stdio::piped());
        let mut stdin = child.stdin.take().expect("stdin is piped");
        // A program that exits without reading all of its input closes the pipe: not ours to
        // judge here, the test reads the status.
        let _ = stdin.write_all(input);
        drop(stdin);
        Run::of(child.wait_with_output().expect("the program ends"))
    }

    /// Runs the program with its stdout on a pipe whose reader reads `read` bytes and leaves,
    /// as `| head` leaves a program still writing.
    pub fn run_into_a_closed_pipe<S: AsRef<OsStr>>(
        &self,
        args: impl IntoIterator<Item = S>,
        read: usize,
    ) -> Run {
        let mut child = self.spawn(args, Stdio::null());
        let mut stdout = child.stdout.take().expect("stdout is piped");
        let mut head = vec![0; read];
        stdout.read_exact(&mut head).expect("some output");
        drop(stdout);
        Run::of(child.wait_with_output().expect("the program ends"))
    }

    /// The program running with `stdin`, its stdout and stderr piped.
    fn spawn<S: AsRef<OsStr>>(&self, args: impl IntoIterator<Item = S>, stdin: Stdio) -> Child {
        self.command(args)
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.binary.display()))
    }
}

impl Run {
    fn of(output: Output) -> Run {
        Run {
            status: output.status,
            stdout: String::from_utf8(output.stdout).expect("UTF-8 stdout"),
            stderr: String::from_utf8(output.stderr).expect("UTF-8 stderr"),
        }
    }

    pub fn success(&self) -> bool {
        self.status.success()
    }

    /// The exit code; a run ended by a signal has none and fails the test.
    pub fn code(&self) -> i32 {
        self.status
            .code()
            .unwrap_or_else(|| panic!("ended by a signal: {self:?}"))
    }

    /// Stdout as one JSON document.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", self.stdout, self.stderr))
    }
}
