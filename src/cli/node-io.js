// The npm package's command line (feature `node`): what src/cli/io.rs asks of the
// system, done with Node's fs. Errors are worded as Rust's std::io::Error words
// them on Linux, so `hwscope` from npm prints what the native one prints.
import { readFileSync, readdirSync, writeFileSync, writeSync } from "node:fs";

const OS_ERRORS = {
  EPERM: [1, "Operation not permitted"],
  ENOENT: [2, "No such file or directory"],
  EIO: [5, "Input/output error"],
  EACCES: [13, "Permission denied"],
  EEXIST: [17, "File exists"],
  ENOTDIR: [20, "Not a directory"],
  EISDIR: [21, "Is a directory"],
  EINVAL: [22, "Invalid argument"],
  ENOSPC: [28, "No space left on device"],
  EROFS: [30, "Read-only file system"],
  ENAMETOOLONG: [36, "File name too long"],
  ELOOP: [40, "Too many levels of symbolic links"],
};

function rustMessage(e) {
  const known = OS_ERRORS[e?.code];
  if (known) return `${known[1]} (os error ${known[0]})`;
  return String(e?.message ?? e);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decode(bytes) {
  try {
    return utf8.decode(bytes);
  } catch {
    throw "stream did not contain valid UTF-8";
  }
}

export function io_read(path) {
  let bytes;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw rustMessage(e);
  }
  return decode(bytes);
}

export function io_write(path, text) {
  try {
    writeFileSync(path, text);
  } catch (e) {
    throw rustMessage(e);
  }
}

export function io_read_dir(path) {
  try {
    return readdirSync(path, { withFileTypes: true }).map((d) => `${d.isDirectory() ? "d" : d.isFile() ? "f" : "o"} ${d.name}`);
  } catch (e) {
    throw rustMessage(e);
  }
}

export function io_stdin() {
  let bytes;
  try {
    bytes = readFileSync(0);
  } catch (e) {
    throw rustMessage(e);
  }
  return decode(bytes);
}

/** Writes all of `text` to a file descriptor; a pipe that is full (EAGAIN) is waited on. */
function writeAll(fd, text) {
  let buf = Buffer.from(text, "utf8");
  while (buf.length > 0) {
    try {
      const n = writeSync(fd, buf);
      buf = buf.subarray(n);
    } catch (e) {
      if (e.code === "EAGAIN") continue;
      throw e;
    }
  }
}

export function io_stdout(text) {
  try {
    writeAll(1, text);
    return true;
  } catch (e) {
    // The reader has gone (`hwscope … | head`): stop quietly, as the native command does.
    if (e.code === "EPIPE") process.exit(0);
    return false;
  }
}

export function io_stderr(text) {
  try {
    writeAll(2, text);
  } catch {
    // Nowhere left to say it.
  }
}
