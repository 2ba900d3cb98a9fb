package main

import (
	"fmt"
	"strings"
)

// exampleObject fills one example object of openapi.yaml (after the line
// "# generated: <Resource> example (…)" and up to the line "# end"). Its
// values are hand-written; the generator keeps them and writes the
// object's keys in the order of the resource's returned fields in
// store/schema, a nullable field the example lacks as null, so that a new
// nullable field needs no edit of the examples (the e2e contract scenario
// validates them against the generated schemas). A non-nullable field the
// example lacks, or a key the schema does not declare, is an error that
// names it. old is the object's current text: a block mapping, or one
// item of a block sequence ("- " before its first key). The marker's
// submatches are its indentation and the resource.
func exampleObject(m []string, old string) (string, error) {
	r, ok := resourceNamed(m[2])
	if !ok {
		return "", fmt.Errorf("no resource %q in store/schema", m[2])
	}
	lines := strings.SplitAfter(old, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return "", fmt.Errorf("an empty %s example", r.Name)
	}
	// The first line sets the keys' indentation; "- " counts as indentation.
	first := lines[0]
	dash := -1
	body := strings.TrimLeft(first, " ")
	ind := len(first) - len(body)
	if strings.HasPrefix(body, "- ") {
		dash = ind
		ind += 2
		lines[0] = strings.Repeat(" ", ind) + body[2:]
	}
	var entries []exampleEntry
	byKey := map[string]int{}
	for _, l := range lines {
		rest := strings.TrimLeft(l, " ")
		in := len(l) - len(rest)
		switch {
		case strings.TrimSpace(l) == "":
			return "", fmt.Errorf("%s example: a blank line", r.Name)
		case in > ind && len(entries) > 0:
			entries[len(entries)-1].text += l
		case in == ind:
			key, _, ok := strings.Cut(rest, ":")
			if !ok || strings.ContainsAny(key, " #-") {
				return "", fmt.Errorf("%s example: %q is not a key", r.Name, strings.TrimSpace(l))
			}
			if _, dup := byKey[key]; dup {
				return "", fmt.Errorf("%s example: %s twice", r.Name, key)
			}
			byKey[key] = len(entries)
			entries = append(entries, exampleEntry{key, l})
		default:
			return "", fmt.Errorf("%s example: %q is not inside the object", r.Name, strings.TrimSpace(l))
		}
	}
	var b strings.Builder
	used := map[string]bool{}
	for _, f := range r.Fields {
		if !f.Read {
			continue
		}
		key := f.JSON
		if f.Group != "" {
			key = f.Group
		}
		if used[key] {
			continue
		}
		used[key] = true
		if i, ok := byKey[key]; ok {
			b.WriteString(entries[i].text)
			continue
		}
		if f.Group != "" || !(f.Null || f.WireNull) {
			return "", fmt.Errorf("%s example %q lacks %s, which is not nullable: write its value", r.Name, exampleID(entries), key)
		}
		fmt.Fprintf(&b, "%s%s: null\n", strings.Repeat(" ", ind), key)
	}
	for _, e := range entries {
		if !used[e.key] {
			return "", fmt.Errorf("%s example %q has %s, which store/schema does not return", r.Name, exampleID(entries), e.key)
		}
	}
	out := b.String()
	if dash >= 0 {
		out = strings.Repeat(" ", dash) + "- " + out[ind:]
	}
	return out, nil
}

// exampleEntry is one key of an example object and its text (its line
// and the deeper-indented lines that follow).
type exampleEntry struct{ key, text string }

// exampleID names an example by its id line, for errors.
func exampleID(entries []exampleEntry) string {
	for _, e := range entries {
		if e.key == "id" {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(e.text), "id:"))
		}
	}
	return "?"
}
