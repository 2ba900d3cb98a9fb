package svcmcp

import (
	"context"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// argumentErrorPrefix starts the go-sdk's message for tool arguments that do
// not match the input schema.
const argumentErrorPrefix = `validating "arguments": `

var (
	// "validating root: validating /properties/limit: type: <invalid reflect.Value> has type "null", want "integer""
	reArgProperty = regexp.MustCompile(`validating /properties/([^:]+): (.*)$`)
	reArgType     = regexp.MustCompile(`^type: .* has type "([a-z]+)", want "([a-z]+)"$`)
	reArgNumber   = regexp.MustCompile(`(-?[0-9]+)/1\b`)
	reArgFloat    = regexp.MustCompile(`([0-9]+)\.0+\b`)
)

// clearArgumentErrors rewrites the go-sdk's schema validation messages of
// tools/call into sentences that name the argument and show JSON values:
// the SDK prints a null as "<invalid reflect.Value>" and integers as
// fractions ("500/1"). It is hand-written because the SDK has no hook to
// format these messages; anything it does not recognise keeps the SDK's
// text, behind the same "invalid arguments" sentence.
func clearArgumentErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/call" || err != nil {
			return res, err
		}
		r, ok := res.(*mcp.CallToolResult)
		if !ok || r == nil || !r.IsError || len(r.Content) != 1 {
			return res, err
		}
		tc, ok := r.Content[0].(*mcp.TextContent)
		if !ok || !strings.HasPrefix(tc.Text, argumentErrorPrefix) {
			return res, err
		}
		tc.Text = "invalid arguments, no request was made: " + capEcho(argumentProblem(strings.TrimPrefix(tc.Text, argumentErrorPrefix)))
		return res, err
	}
}

// argumentProblem turns one go-sdk validation message into a sentence.
func argumentProblem(msg string) string {
	msg = strings.ReplaceAll(msg, "<invalid reflect.Value>", "null")
	msg = reArgNumber.ReplaceAllString(msg, "$1")
	msg = reArgFloat.ReplaceAllString(msg, "$1")
	m := reArgProperty.FindStringSubmatch(msg)
	if m == nil {
		if _, after, ok := strings.Cut(msg, "missing properties: "); ok {
			names := strings.NewReplacer("[", "", "]", "", `"`, "").Replace(after)
			return names + " is required"
		}
		if _, after, ok := strings.Cut(msg, "unexpected additional properties "); ok {
			return "unknown argument " + after + "; leave out an argument to use its default"
		}
		return strings.TrimPrefix(msg, "validating root: ")
	}
	name, problem := m[1], m[2]
	if t := reArgType.FindStringSubmatch(problem); t != nil {
		if t[1] == "null" {
			return name + " must be " + article(t[2]) + ", not null; leave it out to use its default"
		}
		return name + " must be " + article(t[2]) + ", not " + article(t[1])
	}
	return name + ": " + problem
}

func article(jsonType string) string {
	switch jsonType {
	case "integer", "object", "array":
		return "an " + jsonType
	}
	return "a " + jsonType
}
