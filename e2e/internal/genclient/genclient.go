// Package genclient is the Go client that oapi-codegen (pinned in e2e's
// go.mod as a tool) generates from api-server/openapi.yaml, as a user of the
// API would generate it. TestGeneratedClients checks that generating it from
// the document the running server serves gives exactly client.gen.go, and
// that it decodes every demo row as the SDK does.
package genclient

//go:generate go tool oapi-codegen -generate types,client -package genclient -o client.gen.go ../../../api-server/openapi.yaml
