package mcp

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
)

// How install touches the files of a directory it may not trust (a
// project's .mcp.json, .cursor/, .vscode/, .codex/; security review 2,
// issue 40): it never reads or writes through a symbolic link, so that a
// link planted in a project can neither make it copy another file (a
// secret) into the configuration nor make it overwrite another file
// (~/.bashrc) with it, and a linked dotfile in the home directory is not
// replaced by a regular file; the backup is created exclusively (O_EXCL,
// which also refuses a link of that name), under a name not yet taken; a
// project's configuration directory must resolve inside the project.

// errLink is the refusal of a configuration file that is a symbolic link.
func errLink(path string) error {
	target, _ := os.Readlink(path)
	return cmdutil.FlagErrorf("%s is a symbolic link (to %s): svc mcp install does not read or write through links; "+
		"give the file it points to with --config, if that is the file you mean", path, target)
}

// readConfig returns the configuration file at path, nil when there is
// none. A symbolic link, or anything but a regular file, is refused; so is
// a file replaced between the check and the read.
func readConfig(path string) ([]byte, error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return nil, errLink(path)
	}
	if !st.Mode().IsRegular() {
		return nil, cmdutil.FlagErrorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	if fst, err := f.Stat(); err != nil || !os.SameFile(st, fst) {
		return nil, cmdutil.FlagErrorf("%s changed while it was read: run again", path)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// checkProjectDir refuses a project-scope configuration whose directory
// (.cursor, .vscode, .codex) resolves outside the project (a link to
// another directory): install would write another project's, or the
// user's, configuration.
func checkProjectDir(path string) error {
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("current directory: %w", err)
	}
	root, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return fmt.Errorf("current directory: %w", err)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // created by install, inside the project
	}
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Dir(path), err)
	}
	if rel, err := filepath.Rel(root, dir); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return cmdutil.FlagErrorf("%s resolves to %s, outside the project %s: svc mcp install does not write through links; "+
			"give the file you mean with --config", filepath.Dir(path), dir, root)
	}
	return nil
}

// writeBackup writes old to a new file path.bak-TIMESTAMP (…-2, …-3 when
// taken) with mode, created exclusively, and returns its name.
func writeBackup(path string, old []byte, mode fs.FileMode, now time.Time) (string, error) {
	base := path + ".bak-" + now.UTC().Format("20060102T150405Z")
	for i := 1; i <= 100; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue // taken, by a file or a link: never written through
		}
		if err != nil {
			return "", fmt.Errorf("backing up %s: %w", path, err)
		}
		_, err = f.Write(old)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("backing up %s: %w", path, err)
		}
		return name, nil
	}
	return "", cmdutil.FlagErrorf("backing up %s: %s and 99 more names are taken; remove old backups", path, base)
}
