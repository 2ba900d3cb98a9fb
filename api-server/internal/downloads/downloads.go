package downloads

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// sumsName is the checksum file of the downloads; served from the directory
// if it holds one, computed otherwise.
const sumsName = "SHA256SUMS"

type download struct {
	Name   string
	Size   int64
	SHA256 string
}

// hashCache remembers the SHA-256 of a file by name, size and time.
type hashCache struct {
	mu sync.Mutex
	m  map[string]cachedHash
}

type cachedHash struct {
	size int64
	mod  time.Time
	sum  string
}

var downloadHashes = hashCache{m: map[string]cachedHash{}}

// validDownloadName admits plain file names only: no path, no dotfile.
func validDownloadName(name string) bool {
	return name != "" && !strings.HasPrefix(name, ".") && !strings.ContainsAny(name, `/\`) && len(name) <= 255
}

// listDownloads returns the regular files of the directory, sorted, with
// their sizes and SHA-256 as served with site (see readScript).
// Directories, symbolic links and dotfiles are left out.
func (s *Site) listDownloads(site string) ([]download, error) {
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	dir, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	entries, err := dir.ReadDir(-1)
	dir.Close()
	if err != nil {
		return nil, err
	}
	var out []download
	for _, e := range entries {
		if !e.Type().IsRegular() || !validDownloadName(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if e.Name() == installScript {
			data, err := readScript(root, site)
			if err != nil {
				return nil, err
			}
			sum := sha256.Sum256(data)
			out = append(out, download{Name: e.Name(), Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])})
			continue
		}
		sum, err := s.fileHash(root, e.Name(), info)
		if err != nil {
			return nil, err
		}
		out = append(out, download{Name: e.Name(), Size: info.Size(), SHA256: sum})
	}
	slices.SortFunc(out, func(a, b download) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// installScript is the install script of the release (scripts/install-svc.sh).
const installScript = "install-svc.sh"

// defaultSiteLine is the line of the install script naming the site it
// installs from when run piped (`curl … | sh`), with nothing on its command
// line: release-cli writes the release's SITE_URL there.
var defaultSiteLine = regexp.MustCompile(`(?m)^default_site=.*$`)

// servableSite admits the site URLs written into the install script: no
// quote, space or shell metacharacter can get through.
var servableSite = regexp.MustCompile(`^https?://[][A-Za-z0-9.:-]+(/[A-Za-z0-9._~/-]*)?$`)

// PlainSiteURL reports whether site can be Config.DownloadsSiteURL:
// http(s)://host[:port][/path], with no user, query, fragment, space, quote
// or shell metacharacter (it goes into the install script).
func PlainSiteURL(site string) bool {
	return servableSite.MatchString(strings.TrimSuffix(site, "/"))
}

// readScript returns the install script as served: its default_site line
// names site, the configured site (Config.DownloadsSiteURL), so that
// `curl -fsSL {site}/developers/install-svc.sh | sh` installs from that site
// even when the release was built for another (one release served by several
// deployments, or the demo serving dist/ on 127.0.0.1). SHA256SUMS and the
// index give the hash of these bytes. Nothing of the request counts: a Host
// header, an absolute-form target or X-Forwarded-* never choose the site
// that a script or a page names (issue 30).
func readScript(root *os.Root, site string) ([]byte, error) {
	f, err := root.Open(installScript)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil, err
	}
	// A signed release's script is served as signed: rewriting its
	// default_site line would break the signature of SHA256SUMS; the index's
	// install lines name the site on the command line instead (issue 35).
	if signedRelease(root) {
		return data, nil
	}
	first := true
	return defaultSiteLine.ReplaceAllFunc(data, func(line []byte) []byte {
		if !first {
			return line
		}
		first = false
		return []byte("default_site=" + site)
	}), nil
}

// checkSite validates the site for New: required, and a plain http(s) URL
// that can go into the install script. The error messages name the server's
// Config fields, which carry the values to New.
func checkSite(site string) (string, error) {
	if site == "" {
		return "", errors.New("server: DownloadsDir needs DownloadsSiteURL: the site the downloads name is never taken from a request")
	}
	site = strings.TrimSuffix(site, "/")
	if !PlainSiteURL(site) {
		return "", fmt.Errorf("server: DownloadsSiteURL %q: want http(s)://host[:port][/path] with no query, user or quote", site)
	}
	return site, nil
}

func (s *Site) fileHash(root *os.Root, name string, info os.FileInfo) (string, error) {
	downloadHashes.mu.Lock()
	c, ok := downloadHashes.m[s.dir+"/"+name]
	downloadHashes.mu.Unlock()
	if ok && c.size == info.Size() && c.mod.Equal(info.ModTime()) {
		return c.sum, nil
	}
	f, err := root.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	downloadHashes.mu.Lock()
	downloadHashes.m[s.dir+"/"+name] = cachedHash{size: info.Size(), mod: info.ModTime(), sum: sum}
	downloadHashes.mu.Unlock()
	return sum, nil
}

func (s *Site) downloadFile(w http.ResponseWriter, r *http.Request, name string) {
	if !validDownloadName(name) {
		fail(w, http.StatusNotFound, "no such download")
		return
	}
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		fail(w, http.StatusServiceUnavailable, "downloads are unavailable")
		return
	}
	defer root.Close()
	info, err := root.Lstat(name)
	if err != nil || !info.Mode().IsRegular() {
		if name == sumsName {
			s.sums(w, r)
			return
		}
		fail(w, http.StatusNotFound, "no such download")
		return
	}
	var content io.ReadSeeker
	switch name {
	case installScript:
		data, err := readScript(root, s.site)
		if err != nil {
			fail(w, http.StatusNotFound, "no such download")
			return
		}
		content = bytes.NewReader(data)
	case sumsName:
		s.sums(w, r)
		return
	default:
		f, err := root.Open(name)
		if err != nil {
			fail(w, http.StatusNotFound, "no such download")
			return
		}
		defer f.Close()
		content = f
	}
	ct := "application/octet-stream"
	switch {
	case strings.HasSuffix(name, ".tgz"), strings.HasSuffix(name, ".tar.gz"):
		ct = "application/gzip"
	case strings.HasSuffix(name, ".mcpb"), strings.HasSuffix(name, ".zip"):
		ct = "application/zip"
	case strings.HasSuffix(name, ".json"):
		ct = "application/json"
	case strings.HasSuffix(name, ".sh"), name == sumsName:
		ct = "text/plain; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	http.ServeContent(w, r, name, info.ModTime(), content)
}

// sums writes SHA256SUMS in the format sha256sum -c reads: the release's
// own file when the directory holds one, with the install script's line
// giving the hash of the script as served (readScript); computed from the
// files otherwise.
func (s *Site) sums(w http.ResponseWriter, r *http.Request) {
	files, err := s.listDownloads(s.site)
	if err != nil {
		fail(w, http.StatusServiceUnavailable, "downloads are unavailable")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, s.sumsBody(files))
}

// sumsBody is the SHA256SUMS served beside files (see sums).
func (s *Site) sumsBody(files []download) string {
	var b strings.Builder
	if release, ok := s.releaseSums(); ok {
		for line := range strings.Lines(release) {
			if sum, name, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "  "); ok && name == installScript && len(sum) == 64 {
				for _, f := range files {
					if f.Name == installScript {
						line = f.SHA256 + "  " + installScript + "\n"
					}
				}
			}
			b.WriteString(line)
		}
	} else {
		for _, f := range files {
			if f.Name != sumsName {
				fmt.Fprintf(&b, "%s  %s\n", f.SHA256, f.Name)
			}
		}
	}
	return b.String()
}

// releaseSums returns the SHA256SUMS file of the directory, if it has one.
func (s *Site) releaseSums() (string, bool) {
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return "", false
	}
	defer root.Close()
	info, err := root.Lstat(sumsName)
	if err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	f, err := root.Open(sumsName)
	if err != nil {
		return "", false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	return string(data), err == nil
}
