package snapshot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxRecordBytes bounds one NDJSON line.
const maxRecordBytes = 64 << 20

// ndjsonSource reads one record a line.
type ndjsonSource struct {
	r    *bufio.Reader
	line int64
	buf  []byte
	s    scratch
}

func newNDJSONSource(r io.Reader) *ndjsonSource {
	return &ndjsonSource{r: bufio.NewReaderSize(r, 256<<10)}
}

func (s *ndjsonSource) path(_ kind, ord int64) string {
	return fmt.Sprintf("line %d: $", ord)
}

// Records wrap an element with its kind; encoding/json promotes the
// embedded struct's fields, so unknown fields are still refused.
type (
	orgRecord struct {
		Kind string `json:"kind"`
		*Organization
	}
	accountRecord struct {
		Kind string `json:"kind"`
		*Account
	}
	campaignRecord struct {
		Kind string `json:"kind"`
		*Campaign
	}
	insightRecord struct {
		Kind string `json:"kind"`
		*Insight
	}
	leadRecord struct {
		Kind string `json:"kind"`
		*LeadContact
	}
	windowRecord struct {
		Kind string `json:"kind"`
		*Window
	}
)

func (s *ndjsonSource) readLine() ([]byte, error) {
	s.buf = s.buf[:0]
	for {
		chunk, err := s.r.ReadSlice('\n')
		s.buf = append(s.buf, chunk...)
		if len(s.buf) > maxRecordBytes {
			return nil, &ValidationError{Problems: []string{fmt.Sprintf("line %d: longer than %d bytes", s.line+1, maxRecordBytes)}}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read snapshot records: %w", err)
		}
		if err != nil && len(s.buf) == 0 {
			return nil, io.EOF
		}
		return s.buf, nil
	}
}

func (s *ndjsonSource) next(p *problems) (element, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			return element{}, err
		}
		s.line++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		path := s.path(0, s.line)
		var head struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				*p = append(*p, fmt.Sprintf("%s: not valid JSON at byte %d of the line: %v", path, se.Offset, se))
			} else {
				*p = append(*p, path+": want a JSON object with a \"kind\"")
			}
			continue
		}
		k := kind(-1)
		for i, n := range recordKinds {
			if n == head.Kind {
				k = kind(i)
			}
		}
		if k < 0 {
			*p = append(*p, fmt.Sprintf("%s.kind: want one of organization, account, campaign, insight, leadContact, complete, got %s", path, quote(head.Kind)))
			continue
		}
		e := s.s.reset(k, s.line)
		var rec any
		switch k {
		case kindOrganization:
			rec = &orgRecord{Organization: e.org}
		case kindAccount:
			rec = &accountRecord{Account: e.acc}
		case kindCampaign:
			rec = &campaignRecord{Campaign: e.cmp}
		case kindInsight:
			rec = &insightRecord{Insight: e.ins}
		case kindWindow:
			rec = &windowRecord{Window: e.win}
		default:
			rec = &leadRecord{LeadContact: e.lead}
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(rec); err != nil {
			*p = append(*p, decodeProblem(path, err))
			continue
		}
		return e, nil
	}
}
