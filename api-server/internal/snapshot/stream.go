package snapshot

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Format is the shape of an imported stream.
type Format int

const (
	// FormatJSON is the snapshot document of DESIGN §2a: one JSON object
	// whose arrays are read element by element.
	FormatJSON Format = iota
	// FormatNDJSON is one record a line, each a JSON object whose "kind" is
	// organization, account, campaign, insight or leadContact and whose
	// other fields are those of an element of that kind. Records of every
	// kind may come in any order; blank lines are ignored.
	FormatNDJSON
)

// kind is the kind of an element; its value indexes per-kind tables.
type kind int

const (
	kindOrganization kind = iota
	kindAccount
	kindCampaign
	kindInsight
	kindLead
	kindWindow // a complete window (windows.go)
	numKinds
)

// arrayNames are the document's array of each kind; recordKinds the NDJSON
// "kind" of each.
var (
	arrayNames  = [numKinds]string{"organizations", "accounts", "campaigns", "insights", "leadContacts", "complete"}
	recordKinds = [numKinds]string{"organization", "account", "campaign", "insight", "leadContact", "complete"}
)

// element is one decoded element; exactly the field of its kind is set.
// The structs are reused from one element to the next.
type element struct {
	kind kind
	ord  int64 // index in its array (JSON) or line number (NDJSON)
	org  *Organization
	acc  *Account
	cmp  *Campaign
	ins  *Insight
	lead *LeadContact
	win  *Window
}

// source yields the elements of a document in order.
type source interface {
	// next returns the next element, or io.EOF after the last. An element
	// that does not decode (wrong type, unknown field) is reported to p
	// with its path and skipped; a stream that is not JSON ends the
	// import with a *ValidationError.
	next(p *problems) (element, error)
	// path is the path of an element in messages.
	path(k kind, ord int64) string
}

// scratch holds one reusable element of each kind.
type scratch struct {
	org  Organization
	acc  Account
	cmp  Campaign
	ins  Insight
	lead LeadContact
	win  Window
}

// reset zeroes the element of kind k and returns it as an element.
func (s *scratch) reset(k kind, ord int64) element {
	e := element{kind: k, ord: ord}
	switch k {
	case kindOrganization:
		s.org = Organization{}
		e.org = &s.org
	case kindAccount:
		s.acc = Account{}
		e.acc = &s.acc
	case kindCampaign:
		s.cmp = Campaign{}
		e.cmp = &s.cmp
	case kindInsight:
		s.ins = Insight{}
		e.ins = &s.ins
	case kindLead:
		s.lead = LeadContact{}
		e.lead = &s.lead
	case kindWindow:
		s.win = Window{}
		e.win = &s.win
	}
	return e
}

func (e element) target() any {
	switch e.kind {
	case kindOrganization:
		return e.org
	case kindAccount:
		return e.acc
	case kindCampaign:
		return e.cmp
	case kindInsight:
		return e.ins
	case kindWindow:
		return e.win
	}
	return e.lead
}

// jsonSource reads the document with encoding/json's Decoder: Token for
// the top-level object and the brackets of its arrays, Decode for each
// element, so that only one element is held at a time (the decoder buffers
// one value, never the document).
type jsonSource struct {
	dec     *json.Decoder
	s       scratch
	started bool
	inArray bool
	cur     kind
	ord     int64
	done    bool
	seen    [numKinds]bool
}

func newJSONSource(r io.Reader) *jsonSource {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 256<<10))
	dec.DisallowUnknownFields()
	return &jsonSource{dec: dec}
}

func (s *jsonSource) path(k kind, ord int64) string {
	return fmt.Sprintf("$.%s[%d]", arrayNames[k], ord)
}

// fatal turns a decoder error that ends the stream into a *ValidationError.
func (s *jsonSource) fatal(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &ValidationError{Problems: []string{fmt.Sprintf("$: not valid JSON at byte %d: %v", se.Offset, se)}}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &ValidationError{Problems: []string{fmt.Sprintf("$: not valid JSON at byte %d: unexpected end of input", s.dec.InputOffset())}}
	}
	return fmt.Errorf("read snapshot document: %w", err)
}

func (s *jsonSource) next(p *problems) (element, error) {
	if s.done {
		return element{}, io.EOF
	}
	if !s.started {
		s.started = true
		if err := s.open(); err != nil {
			return element{}, err
		}
	}
	for {
		if s.inArray {
			if s.dec.More() {
				e := s.s.reset(s.cur, s.ord)
				s.ord++
				if err := s.dec.Decode(e.target()); err != nil {
					var se *json.SyntaxError
					if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
						return element{}, s.fatal(err)
					}
					*p = append(*p, decodeProblem(s.path(e.kind, e.ord), err))
					continue
				}
				return e, nil
			}
			if _, err := s.dec.Token(); err != nil { // ']'
				return element{}, s.fatal(err)
			}
			s.inArray = false
		}
		tok, err := s.dec.Token()
		if err != nil {
			return element{}, s.fatal(err)
		}
		if d, ok := tok.(json.Delim); ok && d == '}' {
			s.done = true
			if _, err := s.dec.Token(); !errors.Is(err, io.EOF) {
				return element{}, &ValidationError{Problems: []string{fmt.Sprintf("$: not valid JSON at byte %d: data after the document", s.dec.InputOffset())}}
			}
			return element{}, io.EOF
		}
		name, _ := tok.(string)
		if err := s.member(name, p); err != nil {
			return element{}, err
		}
	}
}

// open reads the document's opening brace.
func (s *jsonSource) open() error {
	tok, err := s.dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return &ValidationError{Problems: []string{"$: want a JSON object, got an empty document"}}
		}
		return s.fatal(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return &ValidationError{Problems: []string{"$: want a JSON object"}}
	}
	return nil
}

// member reads the top-level member name up to its array's first element,
// or skips it (reported to p) when it is not one of arrayNames, repeated,
// or not an array; null is an empty array.
func (s *jsonSource) member(name string, p *problems) error {
	k := kind(-1)
	for i, n := range arrayNames {
		if n == name {
			k = kind(i)
		}
	}
	if k < 0 {
		*p = append(*p, fmt.Sprintf("$%s: unknown field (want organizations, accounts, campaigns, insights, leadContacts, complete)", fieldStep(name)))
		return s.skipValue()
	}
	if s.seen[k] {
		// Paths would be ambiguous (and encoding/json keeps only the last).
		*p = append(*p, fmt.Sprintf("$.%s: repeated field", name))
		return s.skipValue()
	}
	s.seen[k] = true
	tok, err := s.dec.Token()
	if err != nil {
		return s.fatal(err)
	}
	if tok == nil { // null: no elements
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		*p = append(*p, fmt.Sprintf("$.%s: want an array", name))
		if ok {
			return s.skipRest(1)
		}
		return nil
	}
	s.inArray, s.cur, s.ord = true, k, 0
	return nil
}

// skipValue skips the next value token by token (never buffering it).
func (s *jsonSource) skipValue() error {
	tok, err := s.dec.Token()
	if err != nil {
		return s.fatal(err)
	}
	if _, ok := tok.(json.Delim); ok {
		return s.skipRest(1)
	}
	return nil
}

// skipRest skips tokens until depth open brackets are closed.
func (s *jsonSource) skipRest(depth int) error {
	for depth > 0 {
		tok, err := s.dec.Token()
		if err != nil {
			return s.fatal(err)
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// docSource yields the elements of a document in memory.
type docSource struct {
	doc *Document
	k   kind
	i   int
}

func (s *docSource) path(k kind, ord int64) string {
	return fmt.Sprintf("$.%s[%d]", arrayNames[k], ord)
}

func (s *docSource) next(*problems) (element, error) {
	for s.k < numKinds {
		var n int
		switch s.k {
		case kindOrganization:
			n = len(s.doc.Organizations)
		case kindAccount:
			n = len(s.doc.Accounts)
		case kindCampaign:
			n = len(s.doc.Campaigns)
		case kindInsight:
			n = len(s.doc.Insights)
		case kindWindow:
			n = len(s.doc.Complete)
		default:
			n = len(s.doc.LeadContacts)
		}
		if s.i >= n {
			s.k, s.i = s.k+1, 0
			continue
		}
		e := element{kind: s.k, ord: int64(s.i)}
		switch s.k {
		case kindOrganization:
			e.org = &s.doc.Organizations[s.i]
		case kindAccount:
			e.acc = &s.doc.Accounts[s.i]
		case kindCampaign:
			e.cmp = &s.doc.Campaigns[s.i]
		case kindInsight:
			e.ins = &s.doc.Insights[s.i]
		case kindWindow:
			e.win = &s.doc.Complete[s.i]
		default:
			e.lead = &s.doc.LeadContacts[s.i]
		}
		s.i++
		return e, nil
	}
	return element{}, io.EOF
}
