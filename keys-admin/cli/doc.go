// Package cli is the keys-admin operator command: migrate the keys tables,
// and create, list, revoke and roll developer keys as a current owner or admin,
// under exactly the rules the settings backend applies.
//
// Files:
//
//   - cli.go: Main and the commands (migrate, create, list, revoke);
//   - roll.go: the roll command (keys.Manager.Roll);
//   - version.go: binaryVersion, what the version command (cli.go) reports.
package cli
