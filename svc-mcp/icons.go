package svcmcp

import (
	"encoding/base64"
	"strings"

	svc "github.com/adsnap/svc/sdk-go"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// iconSVG is the icon of the server, its tools, resources and prompts: three
// bars on a rounded square (a snapshot of metrics), drawn for any size. It
// is a data URI, so that a host shows it without fetching anything.
const iconSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#1f4e79"/><rect x="14" y="34" width="9" height="16" rx="2" fill="#fff"/><rect x="28" y="24" width="9" height="26" rx="2" fill="#fff"/><rect x="42" y="14" width="9" height="36" rx="2" fill="#9fd3ff"/></svg>`

// toolIcons are the icons of every tool, resource and prompt, and of the
// server.
var toolIcons = []mcp.Icon{{
	Source:   "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(iconSVG)),
	MIMEType: "image/svg+xml",
	Sizes:    []string{"any"},
}}

// websiteURL is the page of the server for people: the site's developer
// downloads, which document the service, on the site the server reads from.
func websiteURL(siteURL string) string {
	if siteURL == "" {
		siteURL = svc.DefaultSiteURL
	}
	return strings.TrimSuffix(siteURL, "/") + "/developers/"
}
