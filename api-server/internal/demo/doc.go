// Package demo is what `svc-api demo` serves besides the API: the built-in
// demo data loaded and kept current, the demo key, the "Developer keys"
// settings page behind a demo-only sign-in, and the text printed at start.
// The cli package's demo command opens the database and the listener and
// runs the server with these.
//
// Its files hold:
//   - demo.go: Load (migrate and import the demo snapshot), KeepCurrent
//     (extend it at each UTC midnight), NewKey (this run's key, revoking
//     the oldest demo key at the limit), Print and the commands it names;
//   - settings.go: Settings, the settings page and the in-memory sign-in
//     sessions (never mounted by `svc-api serve`);
//   - downloads.go: DownloadsDir, the release directory the demo serves
//     under /developers/ when none is configured;
//   - large.go: LoadScale, the demo of --scale large (two imports, the
//     second restating the last week).
package demo
