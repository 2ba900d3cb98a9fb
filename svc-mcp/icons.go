package svcmcp

import (
	"strings"

	svc "github.com/adsnap/svc/sdk-go"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// iconURI is the icon of the server: three bars on a rounded square (a
// snapshot of metrics), drawn for any size, as a data URI so that a host
// shows it without fetching anything. It is given once, in the server's
// information: tools, resources and prompts carry none. The protocol of
// 2026-07-28 repeats the server's information in the _meta of every result,
// so the icon is a few bytes of URL-encoded SVG (single quotes, '<', '>' and
// '#' escaped) rather than base64, which costs a model about four times the
// tokens.
const iconURI = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 8 8'%3E%3Crect width='8' height='8' rx='2' fill='%231f4e79'/%3E%3Cpath d='M2 7V4M4 7V3M6 7V1' stroke='%23fff'/%3E%3C/svg%3E"

// serverIcons are the icons of the server.
var serverIcons = []mcp.Icon{{Source: iconURI, MIMEType: "image/svg+xml", Sizes: []string{"any"}}}

// websiteURL is the page of the server for people: the site's developer
// downloads, which document the service, on the site the server reads from.
func websiteURL(siteURL string) string {
	if siteURL == "" {
		siteURL = svc.DefaultSiteURL
	}
	return strings.TrimSuffix(siteURL, "/") + "/developers/"
}
