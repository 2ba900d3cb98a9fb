package main

import (
	"fmt"
	"strings"

	"github.com/adsnap/svc/api-server/internal/store/schema"
)

// openAPISchemas fills openapi.yaml's region of resource schemas: for each
// group of fields (Field.Group) a schema named after it (account:
// AccountRef), then each resource, its properties in the order the API
// returns them, every one required, no other allowed. The marker's first
// submatch is its indentation.
func openAPISchemas(m []string, _ string) (string, error) {
	ind := m[1]
	var b strings.Builder
	groups := map[string]bool{}
	for _, r := range schema.Resources {
		for _, f := range r.Fields {
			if !f.Read || f.Group == "" || groups[f.Group] {
				continue
			}
			groups[f.Group] = true
			var in []schema.Field
			for _, g := range r.Fields {
				if g.Read && g.Group == f.Group {
					g.Group, g.Desc = "", ""
					in = append(in, g)
				}
			}
			if err := openAPIObject(&b, ind, refName(f.Group), in); err != nil {
				return "", err
			}
		}
	}
	for _, r := range schema.Resources {
		var in []schema.Field
		for _, f := range r.Fields {
			if f.Read {
				in = append(in, f)
			}
		}
		if err := openAPIObject(&b, ind, r.Name, in); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// refName is the schema of a group of fields: account is AccountRef.
func refName(group string) string { return strings.ToUpper(group[:1]) + group[1:] + "Ref" }

func openAPIObject(b *strings.Builder, ind, name string, fields []schema.Field) error {
	var req []string
	for _, f := range fields {
		switch {
		case f.Group == "":
			req = append(req, f.JSON)
		case req[len(req)-1] != f.Group:
			req = append(req, f.Group)
		}
	}
	p := ind + "    "
	fmt.Fprintf(b, "%s%s:\n%s  type: object\n%s  additionalProperties: false\n%s  required: [%s]\n%s  properties:\n",
		ind, name, ind, ind, ind, strings.Join(req, ", "), ind)
	done := map[string]bool{}
	for _, f := range fields {
		if f.Group != "" {
			if !done[f.Group] {
				done[f.Group] = true
				fmt.Fprintf(b, "%s%s:\n%s  $ref: '#/components/schemas/%s'\n", p, f.Group, p, refName(f.Group))
			}
			continue
		}
		typ, format, pattern, err := openAPIType(f)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", name, f.Go, err)
		}
		if f.Null || f.WireNull {
			typ = "[" + typ + ", 'null']"
		}
		fmt.Fprintf(b, "%s%s:\n%s  type: %s\n", p, f.JSON, p, typ)
		if format != "" {
			fmt.Fprintf(b, "%s  format: %s\n", p, format)
		}
		if f.Check == schema.Count {
			fmt.Fprintf(b, "%s  minimum: 0\n%s  maximum: %d\n", p, p, schema.MaxCount)
		}
		if f.Desc != "" {
			fmt.Fprintf(b, "%s  description: %s\n", p, yamlScalar(f.Desc))
		}
		if pattern != "" {
			fmt.Fprintf(b, "%s  pattern: '%s'\n", p, pattern)
		}
		if len(f.Enum) > 0 {
			fmt.Fprintf(b, "%s  enum: [%s]\n", p, strings.Join(f.Enum, ", "))
		}
		if f.Examples != "" {
			fmt.Fprintf(b, "%s  examples: %s\n", p, f.Examples)
		}
	}
	return nil
}

// openAPIType is a field's JSON Schema type, format and pattern.
func openAPIType(f schema.Field) (typ, format, pattern string, err error) {
	switch f.Type {
	case schema.Text:
		return "string", "", "", nil
	case schema.Decimal:
		return "string", "", `^-?[0-9]+(\.[0-9]+)?$`, nil
	case schema.Int:
		return "integer", "", "", nil
	case schema.Float:
		return "number", "double", "", nil
	case schema.Bool:
		return "boolean", "", "", nil
	case schema.Time, schema.Date:
		return "string", "date-time", "", nil
	}
	return "", "", "", fmt.Errorf("no wire form for type %d", f.Type)
}

// yamlScalar is s as a YAML scalar: plain when YAML reads it back as s,
// else single-quoted.
func yamlScalar(s string) string {
	if strings.ContainsAny(s[:1], "!&*{}[]|>'\"%@`#,?:-") || strings.Contains(s, ": ") || strings.Contains(s, " #") {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return s
}
