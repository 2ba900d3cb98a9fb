package server

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
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
// their sizes and SHA-256 as served to site (see renderScript).
// Directories, symbolic links and dotfiles are left out.
func (s *Server) listDownloads(site string) ([]download, error) {
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

// readScript returns the install script as served to site: its default_site
// line names the site it is downloaded from, so that
// `curl -fsSL {site}/developers/install-svc.sh | sh` installs from that site
// even when the release was built for another (one release served by several
// deployments, or the demo serving dist/ on 127.0.0.1). SHA256SUMS and the
// index give the hash of these bytes. Unchanged when site is not a plain URL.
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
	if !servableSite.MatchString(site) || signedRelease(root) {
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

// indexData is what the /developers/ page shows: every file, and for the
// newest release found among them, the verify-then-install lines of each way
// to install svc.
type indexData struct {
	Site     string
	Files    []download
	Version  string // newest release with an npm package or an archive; "" if none
	NPM      string // svc-cli-<v>.tgz, if present
	Archives []download
	Bundles  []download
	Script   bool // install-svc.sh is present
	Verify   verifyData
}

// platformSuffix matches the per-platform file names of a release.
var platformSuffix = regexp.MustCompile(`-(linux|darwin|windows)-(amd64|arm64)\.(tgz|mcpb)$`)

// newIndexData groups the files of the downloads directory by what they are.
func newIndexData(site string, files []download) indexData {
	d := indexData{Site: site, Files: files}
	for _, f := range files {
		v, ok := releaseVersion(f.Name)
		if ok && (d.Version == "" || compareVersions(v, d.Version) > 0) {
			d.Version = v
		}
		if f.Name == "install-svc.sh" {
			d.Script = true
		}
	}
	for _, f := range files {
		switch {
		case f.Name == "svc-cli-"+d.Version+".tgz":
			d.NPM = f.Name
		case strings.HasPrefix(f.Name, "svc-cli-"+d.Version+"-") && platformSuffix.MatchString(f.Name):
			d.Archives = append(d.Archives, f)
		case strings.HasPrefix(f.Name, "svc-mcp-"+d.Version+"-") && platformSuffix.MatchString(f.Name):
			d.Bundles = append(d.Bundles, f)
		}
	}
	return d
}

// releaseVersion returns the version in svc-cli-<v>.tgz or
// svc-cli-<v>-<os>-<arch>.tgz.
func releaseVersion(name string) (string, bool) {
	if !strings.HasPrefix(name, "svc-cli-") || !strings.HasSuffix(name, ".tgz") {
		return "", false
	}
	v := strings.TrimSuffix(strings.TrimPrefix(name, "svc-cli-"), ".tgz")
	if m := platformSuffix.FindStringIndex(name); m != nil {
		v = strings.TrimPrefix(name[:m[0]], "svc-cli-")
	}
	return v, v != "" && v[0] >= '0' && v[0] <= '9'
}

// compareVersions orders X.Y.Z[-suffix] versions by their numbers, then
// (numbers equal) a release after its pre-releases. Hand-written: the
// module does not otherwise need golang.org/x/mod/semver.
func compareVersions(a, b string) int {
	na, sa, _ := strings.Cut(a, "-")
	nb, sb, _ := strings.Cut(b, "-")
	pa, pb := strings.Split(na, "."), strings.Split(nb, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return cmp.Compare(x, y)
		}
	}
	switch {
	case sa == sb:
		return 0
	case sa == "":
		return 1
	case sb == "":
		return -1
	}
	return strings.Compare(sa, sb)
}

// siteFor is the site named in the page's commands: the configured one, else
// the address the request came to (http, or https when served over TLS).
func (s *Server) siteFor(r *http.Request) string {
	if s.downloadsSite != "" {
		return strings.TrimSuffix(s.downloadsSite, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

var indexPage = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Downloads: svc {{.Version}}</title></head>
<body><h1>Downloads{{if .Version}}: svc {{.Version}}{{end}}</h1>
<p><code>svc</code> is the command-line client and local MCP server (<code>svc mcp</code>) of this service.
Check every download against <a href="SHA256SUMS">SHA256SUMS</a> before installing it, as below.
{{if .Verify.Signed}}Check the signature of <code>SHA256SUMS</code> first (<a href="#verify">Verify the release</a>): the SHA-256 alone proves only that a file matches the list served by this same site.
{{else}}The SHA-256 check is an integrity check (it catches a corrupted or altered download), not a signature:
it proves the file matches the list served by this same site.{{end}}
On macOS, use <code>shasum -a 256 -c -</code> where the lines say <code>sha256sum -c -</code>.</p>{{template "verify" .}}
{{- $site := .Site}}{{$v := .Version}}
{{- if .Script}}
<h2 id="script">Install script (Linux, macOS)</h2>
<p>The script picks your platform, downloads the archive and <code>SHA256SUMS</code>, {{if .Verify.Signed}}checks the signature of <code>SHA256SUMS</code> and {{end}}checks the archive's SHA-256, and installs nothing when a check fails:</p>
<pre><code>curl -fsSL {{$site}}/developers/install-svc.sh | sh -s -- --dir "$HOME/.local/bin"{{if .Verify.Signed}} {{$site}}{{end}}</code></pre>
<p>To check the script itself first:</p>
<pre><code>curl -fsSLO {{$site}}/developers/install-svc.sh
curl -fsSLO {{$site}}/developers/SHA256SUMS{{template "sigcheck" $}}
grep " install-svc.sh$" SHA256SUMS | sha256sum -c -
sh install-svc.sh --dir "$HOME/.local/bin"{{if $v}} --version {{$v}}{{end}}{{if .Verify.Signed}} {{$site}}{{end}}</code></pre>
{{- end}}
{{- if .NPM}}
<h2 id="npm">npm package (Node.js 22 or newer)</h2>
<p>One package with the binaries of every platform and a small launcher; no dependencies, no install scripts.</p>
<pre><code>curl -fsSLO {{$site}}/developers/{{.NPM}}
curl -fsSLO {{$site}}/developers/SHA256SUMS{{template "sigcheck" $}}
grep " {{.NPM}}$" SHA256SUMS | sha256sum -c -
npm install -g ./{{.NPM}}</code></pre>
{{- end}}
{{- if $v}}
<h2 id="go">go install (Go 1.26 or newer)</h2>
<p>The Go command checks the module's contents against the Go checksum database.</p>
<pre><code>go install github.com/adsnap/svc/svc-cli/cmd/svc@v{{$v}}
export SVC_SITE_URL={{$site}}</code></pre>
{{- end}}
{{- if .Archives}}
<h2 id="archives">Archives</h2>
<p>Each holds <code>svc</code> (<code>svc.exe</code> on Windows), <code>LICENSE</code> and <code>README.md</code>. For example:</p>
{{- with index .Archives 0}}
<pre><code>curl -fsSLO {{$site}}/developers/{{.Name}}
curl -fsSLO {{$site}}/developers/SHA256SUMS{{template "sigcheck" $}}
grep " {{.Name}}$" SHA256SUMS | sha256sum -c -
tar -xzf {{.Name}} svc</code></pre>
{{- end}}
{{- end}}
{{- if .Bundles}}
<h2 id="mcpb">MCP Bundle for desktop MCP hosts</h2>
<p>A <code>.mcpb</code> file runs <code>svc mcp</code> in a desktop host such as Claude Desktop; the host asks for your developer key (stored as a sensitive setting) and the site URL. Download the bundle of your platform, check it, then open it with the host (double-click it, or Settings → Extensions → Install Extension):</p>
{{- with index .Bundles 0}}
<pre><code>curl -fsSLO {{$site}}/developers/{{.Name}}
curl -fsSLO {{$site}}/developers/SHA256SUMS{{template "sigcheck" $}}
grep " {{.Name}}$" SHA256SUMS | sha256sum -c -</code></pre>
{{- end}}
<p>Other hosts: see "Use with an MCP host" in the README inside each archive. <a href="server.json">server.json</a> describes the server in the MCP registry's format.</p>
{{- end}}
<h2 id="files">Files</h2>
<table><thead><tr><th>File</th><th>Size (bytes)</th><th>SHA-256</th></tr></thead><tbody>
{{range .Files}}<tr><td><a href="{{.Name}}">{{.Name}}</a></td><td>{{.Size}}</td><td><code>{{.SHA256}}</code></td></tr>
{{end}}</tbody></table>
<p><a href="SHA256SUMS">SHA256SUMS</a></p></body></html>
`))

func (s *Server) downloadsIndex(c *gin.Context) {
	site := s.siteFor(c.Request)
	files, err := s.listDownloads(site)
	if err != nil {
		s.log.ErrorContext(c.Request.Context(), "downloads", "error", err.Error())
		s.fail(c, http.StatusServiceUnavailable, "downloads are unavailable")
		return
	}
	// SHA256SUMS as served (the install script's line may differ from the file's).
	for i, f := range files {
		if f.Name == sumsName {
			body := s.sumsBody(files)
			sum := sha256.Sum256([]byte(body))
			files[i].Size, files[i].SHA256 = int64(len(body)), hex.EncodeToString(sum[:])
		}
	}
	c.Header("Content-Security-Policy", "default-src 'none'")
	c.Status(http.StatusOK)
	c.Header("Content-Type", "text/html; charset=utf-8")
	d := newIndexData(site, files)
	d.Verify = s.newVerifyData(files, d.Version)
	_ = indexPage.Execute(c.Writer, d)
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
	var content io.ReadSeeker
	switch name {
	case installScript:
		data, err := readScript(root, s.siteFor(c.Request))
		if err != nil {
			s.fail(c, http.StatusNotFound, "no such download")
			return
		}
		content = bytes.NewReader(data)
	case sumsName:
		s.sums(c)
		return
	default:
		f, err := root.Open(name)
		if err != nil {
			s.fail(c, http.StatusNotFound, "no such download")
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
	c.Header("Content-Type", ct)
	http.ServeContent(c.Writer, c.Request, name, info.ModTime(), content)
}

// sums writes SHA256SUMS in the format sha256sum -c reads: the release's
// own file when the directory holds one, with the install script's line
// giving the hash of the script as served (readScript); computed from the
// files otherwise.
func (s *Server) sums(c *gin.Context) {
	files, err := s.listDownloads(s.siteFor(c.Request))
	if err != nil {
		s.fail(c, http.StatusServiceUnavailable, "downloads are unavailable")
		return
	}
	c.Data(http.StatusOK, "text/plain; charset=utf-8", []byte(s.sumsBody(files)))
}

// sumsBody is the SHA256SUMS served beside files (see sums).
func (s *Server) sumsBody(files []download) string {
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
func (s *Server) releaseSums() (string, bool) {
	root, err := os.OpenRoot(s.downloads)
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
