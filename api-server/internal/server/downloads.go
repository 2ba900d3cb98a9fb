package server

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
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
// their sizes and SHA-256. Directories, symbolic links and dotfiles are left out.
func (s *Server) listDownloads() ([]download, error) {
	root, err := os.OpenRoot(s.downloads)
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
		sum, err := s.fileHash(root, e.Name(), info)
		if err != nil {
			return nil, err
		}
		out = append(out, download{Name: e.Name(), Size: info.Size(), SHA256: sum})
	}
	slices.SortFunc(out, func(a, b download) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func (s *Server) fileHash(root *os.Root, name string, info os.FileInfo) (string, error) {
	downloadHashes.mu.Lock()
	c, ok := downloadHashes.m[s.downloads+"/"+name]
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
	downloadHashes.m[s.downloads+"/"+name] = cachedHash{size: info.Size(), mod: info.ModTime(), sum: sum}
	downloadHashes.mu.Unlock()
	return sum, nil
}

var indexPage = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Downloads</title></head>
<body><h1>Downloads</h1>
<p>Verify a download with <code>sha256sum -c SHA256SUMS</code> before installing it. The checksum is an integrity check, not a signature.</p>
<table><thead><tr><th>File</th><th>Size (bytes)</th><th>SHA-256</th></tr></thead><tbody>
{{range .}}<tr><td><a href="{{.Name}}">{{.Name}}</a></td><td>{{.Size}}</td><td><code>{{.SHA256}}</code></td></tr>
{{end}}</tbody></table>
<p><a href="SHA256SUMS">SHA256SUMS</a></p></body></html>
`))

func (s *Server) downloadsIndex(c *gin.Context) {
	files, err := s.listDownloads()
	if err != nil {
		s.log.ErrorContext(c.Request.Context(), "downloads", "error", err.Error())
		s.fail(c, http.StatusServiceUnavailable, "downloads are unavailable")
		return
	}
	c.Header("Content-Security-Policy", "default-src 'none'")
	c.Status(http.StatusOK)
	c.Header("Content-Type", "text/html; charset=utf-8")
	_ = indexPage.Execute(c.Writer, files)
}

func (s *Server) downloadFile(c *gin.Context) {
	name := c.Param("file")
	if !validDownloadName(name) {
		s.fail(c, http.StatusNotFound, "no such download")
		return
	}
	root, err := os.OpenRoot(s.downloads)
	if err != nil {
		s.fail(c, http.StatusServiceUnavailable, "downloads are unavailable")
		return
	}
	defer root.Close()
	info, err := root.Lstat(name)
	if err != nil || !info.Mode().IsRegular() {
		if name == sumsName {
			s.sums(c)
			return
		}
		s.fail(c, http.StatusNotFound, "no such download")
		return
	}
	f, err := root.Open(name)
	if err != nil {
		s.fail(c, http.StatusNotFound, "no such download")
		return
	}
	defer f.Close()
	ct := "application/octet-stream"
	switch {
	case strings.HasSuffix(name, ".tgz"), strings.HasSuffix(name, ".tar.gz"):
		ct = "application/gzip"
	case strings.HasSuffix(name, ".sh"), name == sumsName:
		ct = "text/plain; charset=utf-8"
	}
	c.Header("Content-Type", ct)
	http.ServeContent(c.Writer, c.Request, name, info.ModTime(), f)
}

// sums writes SHA256SUMS in the format sha256sum -c reads.
func (s *Server) sums(c *gin.Context) {
	files, err := s.listDownloads()
	if err != nil {
		s.fail(c, http.StatusServiceUnavailable, "downloads are unavailable")
		return
	}
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%s  %s\n", f.SHA256, f.Name)
	}
	c.Data(http.StatusOK, "text/plain; charset=utf-8", []byte(b.String()))
}
