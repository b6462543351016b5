// The `hwscope` command from npm: the Rust command line's own code (src/cli), run in
// Node's WebAssembly; arguments, output and exit status as `cargo install hwscope`'s
// binary has them (`svg`, `run`, `render-docs`, `figure`, `link`, `config`, `scenarios`,
// `presets`; `check` and `bench` are native only). Reference: docs/cli.md.
import { core } from "./core.js";

/** Runs the command line with `args` (no program name); returns the exit status. */
export function runCli(args) {
  return core().cli(args.map(String));
}
