#!/usr/bin/env node
/**
 * `svc-cli`: the command-line client as the @svc/client package installs it, for a machine that has
 * the client alone. It is `svc cli` of a full checkout (bin/svc.ts), the same commands and messages.
 */
import { runCli } from './main';

void runCli(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env }).then((code) => {
  process.exitCode = code;
});
