package mcp

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/adsnap/svc/svc-cli/internal/build"
)

// claudeDesktop writes an MCP Bundle for Claude Desktop. Claude Desktop's
// own claude_desktop_config.json has no secret mechanism and expands no
// variables (a key there is a plain value in a file), so the key goes
// through the bundle's user_config instead. Documented format
// (https://github.com/modelcontextprotocol/mcpb, MANIFEST.md, manifest
// version 0.3): a zip holding manifest.json and the server; server.type
// "binary" with mcp_config {command, args, env}, where ${__dirname} is the
// unpacked bundle and ${user_config.KEY} a value the host asks the user
// for; "sensitive": true makes Claude Desktop keep it in the operating
// system's keychain and mask it. The bundle holds a copy of the running svc,
// so that it does not depend on the PATH Claude Desktop starts servers with.
type claudeDesktop struct{}

func (claudeDesktop) path(*InstallOptions) (string, error) { return filepath.Abs("svc-mcp.mcpb") }

func (claudeDesktop) update(*InstallOptions, []byte) ([]byte, error) { return nil, nil }

func (claudeDesktop) secret() string {
	return "Key: Claude Desktop's sensitive setting. Open the bundle in Claude Desktop (double-click, or Settings → Extensions → Install Extension): it asks for the developer key and keeps it in the system's keychain."
}

var semver = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// bundleManifest is the bundle's manifest.json.
func bundleManifest(opts *InstallOptions) ([]byte, string) {
	exe := "svc"
	if goos == "windows" {
		exe = "svc.exe"
	}
	version := build.Version()
	if !semver.MatchString(version) {
		version = "0.0.0-dev"
	}
	site := opts.SiteURL
	if site == "" {
		site = defaultSite()
	}
	m := map[string]any{
		"manifest_version": "0.3",
		"name":             "svc-mcp",
		"display_name":     "Snapshot Developer Service",
		"version":          version,
		"description":      "Read-only stored snapshots of your organization's ad accounts, campaigns and daily insights.",
		"author":           map[string]any{"name": "The Snapshot Developer Service authors"},
		"server": map[string]any{
			"type":        "binary",
			"entry_point": "server/" + exe,
			"mcp_config": map[string]any{
				"command": "${__dirname}/server/" + exe,
				"args":    []string{"mcp"},
				"env":     map[string]string{"SVC_API_KEY": "${user_config.api_key}", "SVC_SITE_URL": "${user_config.site_url}"},
			},
		},
		"tools": []map[string]string{
			{"name": "svc_accounts", "description": "Stored snapshot of the organization's ad accounts."},
			{"name": "svc_campaigns", "description": "Stored snapshot of campaigns."},
			{"name": "svc_insights", "description": "Stored daily insight rows for up to 90 days."},
			{"name": "svc_insights_summary", "description": "Totals of the insights per currency and level, computed by the service."},
			{"name": "svc_glossary", "description": "What every field means and how values combine."},
			{"name": "svc_freshness", "description": "How fresh the stored snapshot is."},
		},
		"compatibility": map[string]any{"platforms": []string{goos}},
		"user_config": map[string]any{
			"api_key": map[string]any{"type": "string", "title": "Developer key", "sensitive": true, "required": true,
				"description": "A developer key (svc_live_…) from the settings UI, section \"Developer keys\". Passed to svc as SVC_API_KEY."},
			"site_url": map[string]any{"type": "string", "title": "Site URL", "default": site, "required": true,
				"description": "The site that serves the API (https, or http to this machine only)."},
		},
	}
	raw, _ := json.MarshalIndent(m, "", "  ")
	return append(raw, '\n'), exe
}

// install writes the bundle (or prints its manifest).
func (b claudeDesktop) install(opts *InstallOptions, path string, old []byte) error {
	manifest, exe := bundleManifest(opts)
	if opts.Print {
		_, err := opts.IO.Out.Write(manifest)
		fmt.Fprintf(opts.IO.ErrOut, "# manifest.json of %s (not written; the bundle also holds this svc as server/%s). %s\n", path, exe, b.secret())
		return err
	}
	self, err := opts.Exe()
	if err != nil {
		return fmt.Errorf("finding the running svc to put in the bundle: %w", err)
	}
	bin, err := os.Open(self)
	if err != nil {
		return fmt.Errorf("reading the running svc: %w", err)
	}
	defer bin.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	// A fixed time, so that the same svc gives the same bundle: running the
	// command again changes nothing.
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "manifest.json", Method: zip.Deflate, Modified: at})
	if err == nil {
		_, err = w.Write(manifest)
	}
	if err == nil {
		h := &zip.FileHeader{Name: "server/" + exe, Method: zip.Deflate, Modified: at}
		h.SetMode(0o755)
		if w, err = zw.CreateHeader(h); err == nil {
			_, err = io.Copy(w, bin)
		}
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return fmt.Errorf("building the bundle: %w", err)
	}
	out := opts.IO.Out
	if bytes.Equal(old, buf.Bytes()) {
		fmt.Fprintf(out, "%s is already this bundle; nothing changed.\n%s\n", path, b.secret())
		return nil
	}
	backup, err := writeWithBackup(path, old, buf.Bytes(), opts.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Wrote the MCP Bundle %s", path)
	if backup != "" {
		fmt.Fprintf(out, " (the previous file is %s)", backup)
	}
	fmt.Fprintf(out, ".\n%s\nThe key is not in the bundle.\n", b.secret())
	return nil
}
