// Command pack writes byte-reproducible archives for scripts/release-cli.sh:
//
//	go run ./cmd/pack tgz|zip OUT DIR [PREFIX]   (in internal/tools)
//
// It archives every file under DIR, sorted by path, under PREFIX (e.g.
// "package/" for an npm package), with the time SOURCE_DATE_EPOCH (seconds;
// required), owner 0:0 and no owner names, mode 0755 for files executable
// in DIR and 0644 otherwise, and a gzip header without name or time. The
// same input gives the same bytes on every machine and with every tar or
// zip installed (GNU tar, bsdtar and Info-ZIP differ in their defaults, and
// npm pack rewrites package.json), which is why this is written here with
// the standard library's archive/tar, archive/zip and compress/gzip rather
// than left to the tools of the build machine.
package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

type entry struct {
	name string // slash-separated, under the prefix
	src  string
	dir  bool
	exec bool
	size int64
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "pack:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 3 || len(args) > 4 || (args[0] != "tgz" && args[0] != "zip") {
		return errors.New("usage: pack tgz|zip OUT DIR [PREFIX]")
	}
	kind, out, dir := args[0], args[1], args[2]
	prefix := ""
	if len(args) == 4 {
		prefix = args[3]
	}
	epoch, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64)
	if err != nil {
		return fmt.Errorf("SOURCE_DATE_EPOCH must be set to a time in seconds: %w", err)
	}
	mtime := time.Unix(epoch, 0).UTC()
	entries, err := walk(dir, prefix)
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if kind == "tgz" {
		err = writeTgz(f, entries, mtime)
	} else {
		err = writeZip(f, entries, mtime)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out)
	}
	return err
}

func walk(dir, prefix string) ([]entry, error) {
	var out []entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := entry{name: prefix + filepath.ToSlash(rel), src: p, dir: d.IsDir()}
		switch {
		case d.IsDir():
			e.name += "/"
		case info.Mode().IsRegular():
			e.exec = info.Mode()&0o111 != 0
			e.size = info.Size()
		default:
			return fmt.Errorf("%s: only regular files and directories are packed", p)
		}
		out = append(out, e)
		return nil
	})
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return out, err
}

func mode(e entry) int64 {
	if e.dir || e.exec {
		return 0o755
	}
	return 0o644
}

func writeTgz(w io.Writer, entries []entry, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: mode(e), ModTime: mtime, Format: tar.FormatUSTAR}
		if e.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, e.size
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if !e.dir {
			if err := copyFile(tw, e.src); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, entries []entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, e := range entries {
		// Files only: directories are implied by the paths, and some
		// unzippers (mcpb unpack) fail on directory entries.
		if e.dir {
			continue
		}
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(fs.FileMode(mode(e)))
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if err := copyFile(fw, e.src); err != nil {
			return err
		}
	}
	return zw.Close()
}

func copyFile(w io.Writer, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
