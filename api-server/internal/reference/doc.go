// Package reference is the API reference at {site_url}/developers/api
// (DESIGN §6a): a human-readable page of the OpenAPI document, rendered
// from it once at start-up and served from the binary with its style sheet,
// no script and no request to another host, under a strict
// Content-Security-Policy. Every operation of the document is shown with
// its scope, its limits, its parameters and responses, and its examples
// (x-codeSamples: curl, Go, svc), which the e2e suite runs against a live
// server.
//
// Its files hold:
//   - reference.go: New, the handler (Page.ServeHTTP), and why plain HTML;
//   - model.go: the document read generically (every path and method,
//     local $refs resolved) into what the page shows;
//   - markdown.go: the small part of Markdown the descriptions use;
//   - page.html, reference.css: the embedded template and style sheet.
package reference
