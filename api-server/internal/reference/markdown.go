package reference

import (
	"html/template"
	"regexp"
	"strings"
)

// markdown renders the small part of CommonMark the OpenAPI document's
// descriptions use: paragraphs, "- " lists, `code` and **strong**. The text
// is HTML-escaped first, so nothing of it can become markup but those.
func markdown(s string) template.HTML {
	var b strings.Builder
	for _, block := range strings.Split(strings.TrimSpace(s), "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) == 0 || lines[0] == "" {
			continue
		}
		if !strings.HasPrefix(lines[0], "- ") {
			b.WriteString("<p>" + inline(strings.Join(lines, " ")) + "</p>\n")
			continue
		}
		var items []string
		for _, l := range lines {
			if t, ok := strings.CutPrefix(l, "- "); ok {
				items = append(items, t)
			} else if len(items) > 0 {
				items[len(items)-1] += " " + strings.TrimSpace(l)
			}
		}
		b.WriteString("<ul>\n")
		for _, it := range items {
			b.WriteString("<li>" + inline(it) + "</li>\n")
		}
		b.WriteString("</ul>\n")
	}
	return template.HTML(b.String()) //nolint:gosec // escaped above; only <p>, <ul>, <li>, <code>, <strong> added
}

var (
	reCode   = regexp.MustCompile("`([^`]+)`")
	reStrong = regexp.MustCompile(`\*\*([^*]+)\*\*`)
)

func inline(s string) string {
	s = template.HTMLEscapeString(s)
	s = reCode.ReplaceAllString(s, "<code>$1</code>")
	return reStrong.ReplaceAllString(s, "<strong>$1</strong>")
}
