// Package cli is the keys-admin operator command: migrate the keys tables,
// and create, list and revoke developer keys as a current owner or admin,
// under exactly the rules the settings backend applies.
//
// Files:
//
//   - cli.go: Main and the commands (migrate, create, list, revoke);
//   - version.go: binaryVersion, what the version command (cli.go) reports.
package cli
