package demo

import (
	"os"
	"path/filepath"
)

// DownloadsDir is the directory the demo serves under /developers/ when
// --downloads-dir and SVC_DOWNLOADS_DIR are not set: the dist/ that `make
// release-cli` writes, found in the working directory or beside the bin/
// holding this svc-api (the repository's layout). "" when there is none.
func DownloadsDir() string {
	candidates := []string{"dist"}
	if exe, err := os.Executable(); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(exe), "..", "dist"))
	}
	for _, dir := range candidates {
		if info, err := os.Stat(filepath.Join(dir, "SHA256SUMS")); err == nil && info.Mode().IsRegular() {
			if abs, err := filepath.Abs(dir); err == nil {
				return abs
			}
			return dir
		}
	}
	return ""
}
