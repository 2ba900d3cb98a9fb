package downloads

import (
	"html/template"
	"io"
	"os"
	"regexp"
	"strings"
)

// What a signed release adds to the downloads (scripts/release-cli.sh):
// SHA256SUMS.minisig, the minisign signature of SHA256SUMS by the release
// key; a CycloneDX SBOM per binary (svc-cli-<v>-<os>-<arch>.cdx.json); the
// provenance statement (svc-cli-<v>.intoto.json). The release public key
// is read from the line of the release's install script that names it.

// signatureName is the signature of SHA256SUMS.
const signatureName = sumsName + ".minisig"

// releaseKeyLine is the install script's line naming the release public
// key: "RW" and 54 more base64 characters (minisign's format).
var releaseKeyLine = regexp.MustCompile(`(?m)^release_public_key=(RW[A-Za-z0-9+/]{54})$`)

// signedRelease reports whether the directory holds a signed release. Its
// SHA256SUMS and install script are then served as they were signed, never
// rewritten: a changed byte would break the signature, and the server holds
// no key to sign again. A signed release is built for its site
// (`make release-cli SITE_URL=…`); the index's install lines name the
// serving site on the script's command line instead.
func signedRelease(root *os.Root) bool {
	info, err := root.Lstat(signatureName)
	return err == nil && info.Mode().IsRegular()
}

// releasePublicKey returns the release public key named by the directory's
// install script, or "".
func releasePublicKey(root *os.Root) string {
	f, err := root.Open(installScript)
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return ""
	}
	if m := releaseKeyLine.FindSubmatch(data); m != nil {
		return string(m[1])
	}
	return ""
}

// verifyData is what the index says about checking a signed release.
type verifyData struct {
	Signed     bool   // SHA256SUMS.minisig is served
	PublicKey  string // the release public key, "" if unknown
	SBOMs      []download
	Provenance string // svc-cli-<v>.intoto.json, if served
}

// newVerifyData finds the signature, SBOMs and provenance of version v
// among the files.
func (s *Site) newVerifyData(files []download, v string) verifyData {
	var d verifyData
	for _, f := range files {
		switch {
		case f.Name == signatureName:
			d.Signed = true
		case v != "" && f.Name == "svc-cli-"+v+".intoto.json":
			d.Provenance = f.Name
		case v != "" && strings.HasPrefix(f.Name, "svc-cli-"+v+"-") && strings.HasSuffix(f.Name, ".cdx.json"):
			d.SBOMs = append(d.SBOMs, f)
		}
	}
	if d.Signed {
		if root, err := os.OpenRoot(s.dir); err == nil {
			d.PublicKey = releasePublicKey(root)
			root.Close()
		}
	}
	return d
}

// sigcheck follows each "curl … SHA256SUMS" line of the index: for a signed
// release, the lines that fetch and check its signature.
var _ = template.Must(indexPage.New("sigcheck").Parse(`{{$site := .Site}}{{with .Verify}}{{if .Signed}}
curl -fsSLO {{$site}}/developers/SHA256SUMS.minisig
minisign -Vm SHA256SUMS{{if .PublicKey}} -P {{.PublicKey}}{{end}}{{end}}{{end}}`))

// verifySection is the index's "Verify" section, a template of indexPage
// (a template: exempt from the length rule).
var _ = template.Must(indexPage.New("verify").Parse(`
{{- $site := .Site}}{{with .Verify}}{{if .Signed}}
<h2 id="verify">Verify the release</h2>
<p><code>SHA256SUMS</code> is signed with the release key (minisign's format, Ed25519): <a href="SHA256SUMS.minisig">SHA256SUMS.minisig</a>.
{{- if .PublicKey}} The release public key is <code>{{.PublicKey}}</code>. Compare it with the key in the project's README, or in
<code>svc verify --help</code> of an svc you already trust: a key shown by the site that serves the files proves nothing by itself.{{end}}
Check the signature first, then each file against <code>SHA256SUMS</code> (the install script does both; it refuses a bad or missing signature):</p>
<pre><code>curl -fsSLO {{$site}}/developers/SHA256SUMS
curl -fsSLO {{$site}}/developers/SHA256SUMS.minisig
minisign -Vm SHA256SUMS{{if .PublicKey}} -P {{.PublicKey}}{{end}}</code></pre>
<p>With an svc you already have, no minisign needed: <code>svc verify FILE…</code> checks the signature and each file (put <code>SHA256SUMS</code> and <code>SHA256SUMS.minisig</code> beside them).</p>
<table><thead><tr><th>File</th><th>What it is</th><th>Verify it with</th></tr></thead><tbody>
<tr><td><a href="SHA256SUMS.minisig">SHA256SUMS.minisig</a></td><td>signature of <code>SHA256SUMS</code> by the release key</td><td><code>minisign -Vm SHA256SUMS{{if .PublicKey}} -P {{.PublicKey}}{{end}}</code>, or <code>svc verify SHA256SUMS</code></td></tr>
{{- range .SBOMs}}
<tr><td><a href="{{.Name}}">{{.Name}}</a></td><td>CycloneDX SBOM of the <code>svc</code> in the archive of the same name (also in the npm package and the MCP Bundle of that platform): every module linked in, with its version and hash</td><td><code>grep " {{.Name}}$" SHA256SUMS | sha256sum -c -</code>, or <code>svc verify {{.Name}}</code></td></tr>
{{- end}}
{{- with .Provenance}}
<tr><td><a href="{{.}}">{{.}}</a></td><td>provenance: an in-toto statement (SLSA provenance v1) naming the source commit, <code>versions.yaml</code>, the Go version, the build command and the SHA-256 of every file</td><td><code>grep " {{.}}$" SHA256SUMS | sha256sum -c -</code>, then the files it names: <code>jq -r '.subject[] | "\(.digest.sha256)  \(.name)"' {{.}} | sha256sum -c --ignore-missing -</code></td></tr>
{{- end}}
<tr><td><code>svc-mcp-*.mcpb</code></td><td>MCP Bundles, signed with <code>mcpb sign</code> by the publisher's code-signing certificate</td><td><code>grep " FILE$" SHA256SUMS | sha256sum -c -</code>; the bundle's own signature: <code>mcpb verify FILE</code></td></tr>
</tbody></table>
{{- end}}{{end}}`))
