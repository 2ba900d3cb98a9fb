package downloads

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"html/template"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

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

var indexPage = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Downloads: svc {{.Version}}</title></head>
<body><h1>Downloads{{if .Version}}: svc {{.Version}}{{end}}</h1>
<p><a href="/developers/api">API reference</a>: every operation with its scope, limits and examples (curl, Go, <code>svc</code>).</p>
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

// index writes the /developers/ page.
func (s *Site) index(w http.ResponseWriter, r *http.Request) {
	site := s.site
	files, err := s.listDownloads(site)
	if err != nil {
		s.log.ErrorContext(r.Context(), "downloads", "error", err.Error())
		fail(w, http.StatusServiceUnavailable, "downloads are unavailable")
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
	// frame-ancestors: no other site may frame the page (clickjacking); it
	// is not covered by default-src.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	d := newIndexData(site, files)
	d.Verify = s.newVerifyData(files, d.Version)
	w.WriteHeader(http.StatusOK)
	_ = indexPage.Execute(w, d)
}
