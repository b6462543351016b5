#!/usr/bin/env node
// hwscope from npm (see docs/cli.md): the same command as the Rust binary.
import { runCli } from "../lib/cli.js";

process.exitCode = runCli(process.argv.slice(2));
