package main

import (
	"bytes"
	"image/png"
	"testing"
	"time"
)

func fakeResults(sizes []int) *results {
	res := &results{Started: time.Date(2026, 11, 23, 22, 0, 0, 0, time.UTC), CPUs: 2, Rows: sizes[len(sizes)-1], Conns: 64,
		Main: map[string]map[string]loadResult{}, Scale: map[int]map[string]loadResult{}}
	res.Order = []string{"/insights offset 0", "/insights offset 5000", "/insights offset 10000", "/accounts", "/campaigns"}
	for i, srv := range []string{"baseline", "svc-api"} {
		res.Main[srv] = map[string]loadResult{}
		for j, ep := range res.Order {
			f := float64(1 + i + j)
			res.Main[srv][ep] = loadResult{RPS: 1000 * f, P50: f, P99: 3 * f, Requests: 10000,
				CPU: cpuCost{Server: 0.05 * f, Postgres: 0.03 * f, Redis: 0.01 * float64(i), Total: 0.08*f + 0.01*float64(i)}}
		}
	}
	for k, n := range sizes {
		f := float64(1 + k)
		res.Scale[n] = map[string]loadResult{"/insights offset 0": {P50: f, P99: 2 * f}, "/insights offset 10000": {P50: 3 * f, P99: 5 * f}}
	}
	return res
}

// The chart is a PNG of the set size whatever the number of table sizes.
func TestChart(t *testing.T) {
	for _, sizes := range [][]int{{1000000}, {10000, 1000000, 10000000}} {
		b, err := chart(fakeResults(sizes), sizes)
		if err != nil {
			t.Fatalf("%v: %v", sizes, err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%v: %v", sizes, err)
		}
		if r := img.Bounds(); r.Dx() != 21*96 || r.Dy() != 7*96 {
			t.Errorf("%v: chart is %v, want %dx%d", sizes, r, 21*96, 7*96)
		}
	}
}

func TestRowsLabel(t *testing.T) {
	for n, want := range map[int]string{10000: "10k", 1000000: "1M", 10000000: "10M", 20000: "20k", 12345: "12345", 1500000: "1500k"} {
		if got := rowsLabel(n); got != want {
			t.Errorf("rowsLabel(%d) = %s, want %s", n, got, want)
		}
	}
}
