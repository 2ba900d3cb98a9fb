package svcmcp

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestToolSnapshots compares each tool's definition (name, title,
// description, annotations, input and output schema) with
// testdata/<tool>.snap.json. Run with UPDATE_SNAPSHOTS=1 to write them
// after an intended change; a missing or different snapshot fails.
func TestToolSnapshots(t *testing.T) {
	t.Parallel()
	cs := connect(t)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	update := os.Getenv("UPDATE_SNAPSHOTS") == "1"
	for _, tool := range res.Tools {
		got, err := json.MarshalIndent(tool, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join("testdata", tool.Name+".snap.json")
		if update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("tool %s: no snapshot (%v); run UPDATE_SNAPSHOTS=1 go test ./... and review the new file", tool.Name, err)
			continue
		}
		if !bytes.Equal(want, got) {
			t.Errorf("tool %s differs from %s (-snapshot +now); if intended, run UPDATE_SNAPSHOTS=1 go test ./... and review the diff:\n%s",
				tool.Name, path, cmp.Diff(string(want), string(got)))
		}
	}
}
