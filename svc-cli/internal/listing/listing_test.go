package listing

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/iostreams"
	"github.com/adsnap/svc/svc-cli/internal/output"
)

var intSpec = output.Spec[int]{CSV: []output.Column[int]{{Header: "n", Value: func(i int) string { return string(rune('0' + i)) }}}}

// source yields rows then err; each row is announced to prog as a page of
// its own, as the SDK's hooks would.
func source(prog *Progress, rows []int, err error) Source[int] {
	return Source[int]{
		Page: func(context.Context, svc.ListOptions) (*svc.Page[int], error) {
			return &svc.Page[int]{Data: rows, Meta: svc.Meta{DataAsOf: "a"}}, nil
		},
		All: func(context.Context, svc.ListOptions) iter.Seq2[svc.Row[int], error] {
			return func(yield func(svc.Row[int], error) bool) {
				for _, r := range rows {
					prog.response(&svc.Response{Meta: &svc.Meta{DataAsOf: "a", Returned: 1}})
					if !yield(svc.Row[int]{Value: r}, nil) {
						return
					}
				}
				if err != nil {
					yield(svc.Row[int]{}, err)
				}
			}
		},
	}
}

func TestRunStreamsAndKeepsRowsOnFailure(t *testing.T) {
	t.Parallel()
	for _, f := range []output.Format{output.JSONL, output.CSV, output.JSON} {
		ios, _, stdout, stderr := iostreams.Test()
		prog := NewProgress(ios, false)
		fail := &svc.IncompleteError{Endpoint: "GET /x", Rows: 3, Reason: "no split helps"}
		err := Run(t.Context(), ios, Request{All: true}, f, intSpec, prog, source(prog, []int{1, 2, 3}, fail))
		partial, ok := errors.AsType[*cmdutil.PartialError](err)
		if !ok || partial.Rows != 3 || !errors.Is(err, svc.ErrIncomplete) {
			t.Fatalf("%s: err %v, want a PartialError of 3 rows wrapping ErrIncomplete", f, err)
		}
		want := map[output.Format]string{
			output.JSONL: "1\n2\n3\n",
			output.CSV:   "n\n1\n2\n3\n",
			output.JSON:  "[\n  1,\n  2,\n  3", // unterminated on purpose
		}[f]
		if stdout.String() != want {
			t.Errorf("%s: stdout %q, want %q", f, stdout, want)
		}
		if code, msg := cmdutil.ExitFor(err); code != cmdutil.ExitIncomplete || !strings.Contains(msg, "3 rows were printed") {
			t.Errorf("%s: exit %d %q", f, code, msg)
		}
		if strings.Count(stderr.String(), "Stored snapshot") != 1 {
			t.Errorf("%s: stderr %q, want the provenance once", f, stderr)
		}
	}
}

func TestProgressWaits(t *testing.T) {
	t.Parallel()
	long := svc.Wait{Endpoint: "GET /insights", Duration: 22500 * time.Millisecond, Reason: svc.WaitRateLimited}
	short := svc.Wait{Endpoint: "GET /insights", Duration: time.Second, Reason: svc.WaitPacing}

	// Off a terminal: one plain line for a wait over 5 s only.
	ios, _, _, stderr := iostreams.Test()
	p := NewProgress(ios, false)
	p.Start(true)
	p.wait(short)
	p.wait(long)
	if want := "svc: waiting 23 s for the rate limit (0 rows read so far)\n"; stderr.String() != want {
		t.Errorf("not a terminal: %q, want %q", stderr, want)
	}

	// On a terminal: the progress line says it.
	ios, _, _, stderr = iostreams.Test()
	ios.SetStderrTTY(true)
	p = NewProgress(ios, false)
	p.Start(true)
	p.response(&svc.Response{Meta: &svc.Meta{Returned: 100}})
	p.wait(long)
	p.Done()
	if want := "\r\x1b[KRead 100 rows (1 pages)…\r\x1b[KRead 100 rows (1 pages) · waiting 23 s for the rate limit…\r\x1b[K"; stderr.String() != want {
		t.Errorf("terminal: %q, want %q", stderr, want)
	}

	// --quiet: nothing, not even the key-expiry warning.
	ios, _, _, stderr = iostreams.Test()
	ios.SetStderrTTY(true)
	p = NewProgress(ios, true)
	p.Start(false)
	p.response(&svc.Response{Meta: &svc.Meta{Returned: 1}, KeyExpiresAt: time.Now().Add(time.Hour)})
	p.wait(long)
	p.Done()
	if stderr.Len() != 0 {
		t.Errorf("quiet: %q", stderr)
	}
}

func TestProgressKeyExpiryWarning(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		expires time.Time
		want    string
	}{
		{now.Add(8 * 24 * time.Hour), ""},
		{now.Add(6*24*time.Hour + time.Hour), "Warning: the API key expires in 6 days (2026-11-26 11:00 UTC); create a new key in the settings UI (Developer keys) before then.\n"},
		{now.Add(5 * time.Hour), "Warning: the API key expires in 5 hours (2026-11-20 15:00 UTC); create a new key in the settings UI (Developer keys) before then.\n"},
	} {
		ios, _, _, stderr := iostreams.Test()
		p := NewProgress(ios, false)
		p.now = func() time.Time { return now }
		for range 2 { // warned once
			p.response(&svc.Response{KeyExpiresAt: tt.expires})
		}
		if stderr.String() != tt.want {
			t.Errorf("expires %s: %q, want %q", tt.expires, stderr, tt.want)
		}
	}
}

// TestRunPrintsRawRows: json and jsonl print each row as the service sent
// it, streamed with --all as on a single page; csv uses the typed row.
func TestRunPrintsRawRows(t *testing.T) {
	t.Parallel()
	type row struct {
		N int `json:"n"`
	}
	raw := []json.RawMessage{[]byte(`{"n": 1, "date": "2026-11-19T00:00:00Z"}`), []byte(`{"n":2,"date":"2026-11-18T00:00:00Z"}`)}
	src := Source[row]{
		Page: func(context.Context, svc.ListOptions) (*svc.Page[row], error) {
			p := new(svc.Page[row])
			body := `{"data":[` + string(raw[0]) + `,` + string(raw[1]) + `],"meta":{"dataAsOf":"a"}}`
			if err := json.Unmarshal([]byte(body), p); err != nil {
				return nil, err
			}
			return p, nil
		},
		All: func(context.Context, svc.ListOptions) iter.Seq2[svc.Row[row], error] {
			return func(yield func(svc.Row[row], error) bool) {
				for i, r := range raw {
					if !yield(svc.Row[row]{Value: row{N: i + 1}, Raw: r}, nil) {
						return
					}
				}
			}
		},
	}
	spec := output.Spec[row]{CSV: []output.Column[row]{{Header: "n", Value: func(r row) string { return intSpec.CSV[0].Value(r.N) }}}}
	for _, all := range []bool{false, true} {
		for f, want := range map[output.Format]string{
			output.JSONL: `{"n":1,"date":"2026-11-19T00:00:00Z"}` + "\n" + `{"n":2,"date":"2026-11-18T00:00:00Z"}` + "\n",
			output.JSON:  "[\n  {\n    \"n\": 1,\n    \"date\": \"2026-11-19T00:00:00Z\"\n  },\n  {\n    \"n\": 2,\n    \"date\": \"2026-11-18T00:00:00Z\"\n  }\n]\n",
			output.CSV:   "n\n1\n2\n",
		} {
			ios, _, stdout, _ := iostreams.Test()
			if err := Run(t.Context(), ios, Request{All: all}, f, spec, NewProgress(ios, true), src); err != nil {
				t.Fatalf("all=%v %s: %v", all, f, err)
			}
			if stdout.String() != want {
				t.Errorf("all=%v %s: stdout %q, want %q", all, f, stdout, want)
			}
		}
	}
}
