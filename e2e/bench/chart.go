package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
)

// The chart is drawn with the standard library only: two panels, p50/p99
// latency of /insights against table size (log scale), and req/s per
// endpoint for the baseline and svc-api. Text uses a built-in 3×5 font.

var glyphs = map[rune][5]string{
	'0': {"###", "#.#", "#.#", "#.#", "###"}, '1': {".#.", "##.", ".#.", ".#.", "###"},
	'2': {"###", "..#", "###", "#..", "###"}, '3': {"###", "..#", ".##", "..#", "###"},
	'4': {"#.#", "#.#", "###", "..#", "..#"}, '5': {"###", "#..", "###", "..#", "###"},
	'6': {"###", "#..", "###", "#.#", "###"}, '7': {"###", "..#", ".#.", ".#.", ".#."},
	'8': {"###", "#.#", "###", "#.#", "###"}, '9': {"###", "#.#", "###", "..#", "###"},
	'A': {".#.", "#.#", "###", "#.#", "#.#"}, 'B': {"##.", "#.#", "##.", "#.#", "##."},
	'C': {".##", "#..", "#..", "#..", ".##"}, 'D': {"##.", "#.#", "#.#", "#.#", "##."},
	'E': {"###", "#..", "##.", "#..", "###"}, 'F': {"###", "#..", "##.", "#..", "#.."},
	'G': {".##", "#..", "#.#", "#.#", ".##"}, 'H': {"#.#", "#.#", "###", "#.#", "#.#"},
	'I': {"###", ".#.", ".#.", ".#.", "###"}, 'J': {"..#", "..#", "..#", "#.#", ".#."},
	'K': {"#.#", "#.#", "##.", "#.#", "#.#"}, 'L': {"#..", "#..", "#..", "#..", "###"},
	'M': {"#.#", "###", "###", "#.#", "#.#"}, 'N': {"##.", "#.#", "#.#", "#.#", "#.#"},
	'O': {".#.", "#.#", "#.#", "#.#", ".#."}, 'P': {"##.", "#.#", "##.", "#..", "#.."},
	'Q': {".#.", "#.#", "#.#", "##.", ".##"}, 'R': {"##.", "#.#", "##.", "#.#", "#.#"},
	'S': {".##", "#..", ".#.", "..#", "##."}, 'T': {"###", ".#.", ".#.", ".#.", ".#."},
	'U': {"#.#", "#.#", "#.#", "#.#", "###"}, 'V': {"#.#", "#.#", "#.#", "#.#", ".#."},
	'W': {"#.#", "#.#", "###", "###", "#.#"}, 'X': {"#.#", "#.#", ".#.", "#.#", "#.#"},
	'Y': {"#.#", "#.#", ".#.", ".#.", ".#."}, 'Z': {"###", "..#", ".#.", "#..", "###"},
	'/': {"..#", "..#", ".#.", "#..", "#.."}, '.': {"...", "...", "...", "...", ".#."},
	'-': {"...", "...", "###", "...", "..."}, ':': {"...", ".#.", "...", ".#.", "..."},
	'(': {".#.", "#..", "#..", "#..", ".#."}, ')': {".#.", "..#", "..#", "..#", ".#."},
	'=': {"...", "###", "...", "###", "..."}, ',': {"...", "...", "...", ".#.", "#.."},
	'%': {"#.#", "..#", ".#.", "#..", "#.#"}, '+': {"...", ".#.", "###", ".#.", "..."},
	' ': {"...", "...", "...", "...", "..."},
}

type canvas struct{ *image.RGBA }

func (c canvas) text(x, y, scale int, s string, col color.Color) {
	for _, r := range strings.ToUpper(s) {
		g, ok := glyphs[r]
		if !ok {
			g = glyphs[' ']
		}
		for gy, row := range g {
			for gx, p := range row {
				if p == '#' {
					c.rect(x+gx*scale, y+gy*scale, scale, scale, col)
				}
			}
		}
		x += 4 * scale
	}
}

func textWidth(s string, scale int) int { return len([]rune(s)) * 4 * scale }

func (c canvas) rect(x, y, w, h int, col color.Color) {
	for j := y; j < y+h; j++ {
		for i := x; i < x+w; i++ {
			c.Set(i, j, col)
		}
	}
}

func (c canvas) line(x0, y0, x1, y1, width int, col color.Color) {
	n := max(abs(x1-x0), abs(y1-y0), 1)
	for i := 0; i <= n; i++ {
		x := x0 + (x1-x0)*i/n
		y := y0 + (y1-y0)*i/n
		c.rect(x-width/2, y-width/2, width, width, col)
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

var (
	colBlack = color.RGBA{30, 30, 30, 255}
	colGrid  = color.RGBA{225, 225, 225, 255}
	colBase  = color.RGBA{150, 150, 150, 255}
	colSvc   = color.RGBA{31, 119, 180, 255}
	colSvc2  = color.RGBA{255, 127, 14, 255}
)

// niceMax rounds v up to 1, 2 or 5 × a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func chart(res *results, sizes []int) ([]byte, error) {
	const W, H = 1400, 620
	c := canvas{image.NewRGBA(image.Rect(0, 0, W, H))}
	c.rect(0, 0, W, H, color.White)
	c.text(20, 15, 3, fmt.Sprintf("SVC-API BENCHMARK  %d CPUS  C=%d  %d ROWS", res.CPUs, res.Conns, res.Rows), colBlack)

	// Left panel: latency against table size.
	px, py, pw, ph := 90, 90, 520, 420
	c.text(px, py-30, 2, "/INSIGHTS LATENCY (MS) VS TABLE ROWS", colBlack)
	var maxLat float64
	for _, n := range sizes {
		for _, r := range res.Scale[n] {
			maxLat = max(maxLat, r.P99)
		}
	}
	maxLat = niceMax(maxLat)
	for i := 0; i <= 5; i++ {
		y := py + ph - ph*i/5
		c.line(px, y, px+pw, y, 1, colGrid)
		c.text(px-60, y-5, 2, fmt.Sprintf("%g", maxLat*float64(i)/5), colBlack)
	}
	c.line(px, py, px, py+ph, 2, colBlack)
	c.line(px, py+ph, px+pw, py+ph, 2, colBlack)
	xOf := func(n int) int {
		if len(sizes) < 2 {
			return px + pw/2
		}
		lo, hi := math.Log10(float64(sizes[0])), math.Log10(float64(sizes[len(sizes)-1]))
		return px + 20 + int(float64(pw-40)*(math.Log10(float64(n))-lo)/(hi-lo))
	}
	for _, n := range sizes {
		label := fmt.Sprintf("%d", n)
		c.text(xOf(n)-textWidth(label, 2)/2, py+ph+10, 2, label, colBlack)
	}
	series := []struct {
		ep   string
		p99  bool
		col  color.Color
		name string
	}{
		{"/insights offset 0", false, colSvc, "OFFSET 0 P50"}, {"/insights offset 0", true, colSvc, "OFFSET 0 P99"},
		{"/insights offset 10000", false, colSvc2, "OFFSET 10000 P50"}, {"/insights offset 10000", true, colSvc2, "OFFSET 10000 P99"},
	}
	for si, s := range series {
		width := 4
		if s.p99 {
			width = 2
		}
		var lx, ly int
		for i, n := range sizes {
			r := res.Scale[n][s.ep]
			v := r.P50
			if s.p99 {
				v = r.P99
			}
			x, y := xOf(n), py+ph-int(float64(ph)*v/maxLat)
			c.rect(x-4, y-4, 9, 9, s.col)
			if i > 0 {
				c.line(lx, ly, x, y, width, s.col)
			}
			lx, ly = x, y
		}
		c.line(px+10, py+ph+45+si*18, px+40, py+ph+45+si*18, width, s.col)
		c.text(px+50, py+ph+40+si*18, 2, s.name, colBlack)
	}

	// Right panel: req/s per endpoint.
	qx, qy, qw, qh := 760, 90, 600, 420
	c.text(qx, qy-30, 2, fmt.Sprintf("REQ/S PER ENDPOINT AT %d ROWS", res.Rows), colBlack)
	var maxRPS float64
	for _, m := range res.Main {
		for _, r := range m {
			maxRPS = max(maxRPS, r.RPS)
		}
	}
	maxRPS = niceMax(maxRPS)
	for i := 0; i <= 5; i++ {
		y := qy + qh - qh*i/5
		c.line(qx, y, qx+qw, y, 1, colGrid)
		c.text(qx-70, y-5, 2, fmt.Sprintf("%g", maxRPS*float64(i)/5), colBlack)
	}
	c.line(qx, qy, qx, qy+qh, 2, colBlack)
	c.line(qx, qy+qh, qx+qw, qy+qh, 2, colBlack)
	n := max(len(res.Order), 1)
	slot := qw / n
	for i, ep := range res.Order {
		x := qx + i*slot + slot/6
		bw := slot / 3
		for j, srv := range []string{"baseline", "svc-api"} {
			v := res.Main[srv][ep].RPS
			h := int(float64(qh) * v / maxRPS)
			col := colBase
			if srv == "svc-api" {
				col = colSvc
			}
			c.rect(x+j*bw, qy+qh-h, bw-2, h, col)
		}
		label := strings.TrimPrefix(strings.ReplaceAll(ep, "/insights offset ", "INS "), "/")
		c.text(qx+i*slot+slot/2-textWidth(label, 2)/2, qy+qh+10, 2, label, colBlack)
	}
	c.rect(qx+10, qy+qh+40, 20, 12, colBase)
	c.text(qx+40, qy+qh+40, 2, "BASELINE (NET/HTTP+PGX, NO AUTH)", colBlack)
	c.rect(qx+10, qy+qh+60, 20, 12, colSvc)
	c.text(qx+40, qy+qh+60, 2, "SVC-API (FULL PIPELINE)", colBlack)

	var buf bytes.Buffer
	if err := png.Encode(&buf, c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
