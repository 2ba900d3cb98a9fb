#!/usr/bin/env node
// Launcher of svc in the svc-cli npm package: it runs the svc binary bundled
// for this platform (platforms/<os>-<arch>/svc, svc.exe on Windows), as
// esbuild and Biome ship their native binaries, but in one package: the
// SPEC names one file, svc-cli-<version>.tgz.
//
// Arguments, standard input, output and error, the exit code and signals go
// through untouched: the child inherits the three streams (so `svc mcp`
// speaks its protocol on stdout with nothing from here in between), SIGINT,
// SIGTERM and SIGHUP sent to this process are passed to the child, and when
// the child dies of a signal this process dies of the same one. This file
// never writes to stdout; its own messages go to stderr.
//
// Plain Node.js (>= 22), CommonJS, no dependencies and no install scripts.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

// Node's names for the operating systems and architectures, to Go's.
const GOOS = { linux: 'linux', darwin: 'darwin', win32: 'windows' };
const GOARCH = { x64: 'amd64', arm64: 'arm64' };

const platformsDir = path.join(__dirname, '..', 'platforms');

function bundled() {
  try {
    return fs.readdirSync(platformsDir).filter((d) => !d.startsWith('.')).sort();
  } catch {
    return [];
  }
}

function fail(message) {
  process.stderr.write(`svc (npm launcher): ${message}\n`);
  process.exit(1);
}

const goos = GOOS[process.platform];
const goarch = GOARCH[process.arch];
const platform = `${goos || process.platform}-${goarch || process.arch}`;
const exe = path.join(platformsDir, platform, goos === 'windows' ? 'svc.exe' : 'svc');

if (!goos || !goarch || !fs.existsSync(exe)) {
  const have = bundled();
  fail(
    `this package has no svc binary for ${process.platform}/${process.arch} (${platform}); ` +
      `it has: ${have.length ? have.join(', ') : 'none'}. ` +
      'Download the archive for your platform from {site}/developers/, or build svc with ' +
      '"go install github.com/adsnap/svc/svc-cli/cmd/svc@latest".',
  );
}

const child = spawn(exe, process.argv.slice(2), { stdio: 'inherit', windowsHide: false });

const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const forward = (signal) => {
  // A terminal's Ctrl-C reaches the child too (same process group); svc
  // treats a repeated SIGINT like the first, so passing it on is harmless.
  try {
    child.kill(signal);
  } catch {
    // The child is already gone; its exit is handled below.
  }
};
for (const signal of forwarded) process.on(signal, forward);

child.on('error', (err) => {
  fail(`cannot run ${exe}: ${err.message}`);
});

child.on('exit', (code, signal) => {
  for (const s of forwarded) process.removeListener(s, forward);
  if (signal) {
    // Die of the same signal, so that the caller sees what the child saw.
    try {
      process.kill(process.pid, signal);
    } catch {
      // Not a signal this platform can raise: fall through to the exit code.
    }
    // Should the signal not end this process, exit as a shell reports it.
    const number = require('node:os').constants.signals[signal] || 0;
    setTimeout(() => process.exit(128 + number), 100);
    return;
  }
  process.exit(code === null ? 1 : code);
});
