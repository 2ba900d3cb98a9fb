// Package accesslog is the access log's line: its attributes for slog,
// and the same line appended as slog's JSONHandler writes it, for the
// server to write without slog's handler (see Line.AppendJSON).
//
// Files:
//
//   - accesslog.go: Line, its slog attributes (Attrs) and its JSON (AppendJSON).
package accesslog
