package main

import (
	"bytes"
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The chart (gonum.org/v1/plot) has three panels: p50/p99 latency of
// /insights against table size (log scale), req/s per endpoint for the
// baseline and svc-api at the main size, and the CPU one request of each
// endpoint costs, by process, for both.

var (
	colBase = color.RGBA{150, 150, 150, 255}
	colSvc  = color.RGBA{31, 119, 180, 255}
	colSvc2 = color.RGBA{255, 127, 14, 255}
	// CPU by process: svc-api's shade, the baseline's lighter tint.
	colCPU = map[string][2]color.Color{
		"server":     {color.RGBA{31, 119, 180, 255}, color.RGBA{158, 202, 225, 255}},
		"PostgreSQL": {color.RGBA{44, 160, 44, 255}, color.RGBA{161, 217, 155, 255}},
		"Redis":      {color.RGBA{214, 39, 40, 255}, color.RGBA{252, 174, 145, 255}},
	}
)

// rowsLabel writes a table size as 10k, 1M, 10M.
func rowsLabel(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// endpointLabel shortens an endpoint's name for an axis.
func endpointLabel(ep string) string {
	return strings.TrimPrefix(strings.ReplaceAll(ep, "/insights offset ", "insights @"), "/")
}

// newPlot is a plot with type large enough to read on the 2016×672 image.
func newPlot() *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font.Size = vg.Points(14)
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(12)
		a.Tick.Label.Font.Size = vg.Points(11)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(11)
	return p
}

func latencyPlot(res *results, sizes []int) (*plot.Plot, error) {
	p := newPlot()
	p.Title.Text = "/insights latency against table size (svc-api)"
	p.X.Label.Text = "insight rows"
	p.Y.Label.Text = "latency (ms)"
	if len(sizes) > 1 {
		p.X.Scale = plot.LogScale{}
	}
	var ticks plot.ConstantTicks
	for _, n := range sizes {
		ticks = append(ticks, plot.Tick{Value: float64(n), Label: rowsLabel(n)})
	}
	p.X.Tick.Marker = ticks
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	for _, s := range []struct {
		ep   string
		p99  bool
		col  color.Color
		name string
	}{
		{"/insights offset 0", false, colSvc, "offset 0 p50"}, {"/insights offset 0", true, colSvc, "offset 0 p99"},
		{"/insights offset 10000", false, colSvc2, "offset 10000 p50"}, {"/insights offset 10000", true, colSvc2, "offset 10000 p99"},
	} {
		var xys plotter.XYs
		for _, n := range sizes {
			r, ok := res.Scale[n][s.ep]
			if !ok {
				continue
			}
			v := r.P50
			if s.p99 {
				v = r.P99
			}
			xys = append(xys, plotter.XY{X: float64(n), Y: v})
		}
		if len(xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		l.Color, pts.Color, l.Width = s.col, s.col, vg.Points(2)
		pts.Shape = draw.CircleGlyph{}
		if s.p99 {
			l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		}
		p.Add(l, pts)
		p.Legend.Add(s.name, l, pts)
	}
	p.Y.Max *= 1.4 // room for the legend
	return p, nil
}

func rpsPlot(res *results) (*plot.Plot, error) {
	p := newPlot()
	p.Title.Text = fmt.Sprintf("req/s per endpoint at %d rows", res.Rows)
	p.Y.Label.Text = "requests per second"
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	w := vg.Points(22)
	for i, srv := range []struct {
		name, label string
		col         color.Color
	}{{"baseline", "baseline (net/http + pgx, no auth)", colBase}, {"svc-api", "svc-api (full pipeline)", colSvc}} {
		var vs plotter.Values
		for _, ep := range res.Order {
			vs = append(vs, res.Main[srv.name][ep].RPS)
		}
		b, err := plotter.NewBarChart(vs, w)
		if err != nil {
			return nil, err
		}
		b.Color, b.LineStyle.Width = srv.col, 0
		b.Offset = w * vg.Length(2*i-1) / 2
		p.Add(b)
		p.Legend.Add(srv.label, b)
	}
	p.NominalX(labels(res.Order)...)
	p.Y.Max *= 1.2 // room for the legend
	return p, nil
}

func cpuPlot(res *results) (*plot.Plot, error) {
	p := newPlot()
	p.Title.Text = "CPU per request by process (left bar: baseline, right: svc-api)"
	p.Y.Label.Text = "CPU ms per request"
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	w := vg.Points(22)
	for i, srv := range []string{"baseline", "svc-api"} {
		var below *plotter.BarChart
		for _, proc := range []string{"server", "PostgreSQL", "Redis"} {
			var vs plotter.Values
			for _, ep := range res.Order {
				c := res.Main[srv][ep].CPU
				vs = append(vs, map[string]float64{"server": c.Server, "PostgreSQL": c.Postgres, "Redis": c.Redis}[proc])
			}
			b, err := plotter.NewBarChart(vs, w)
			if err != nil {
				return nil, err
			}
			b.Color, b.LineStyle.Width = colCPU[proc][i^1], 0
			b.Offset = w * vg.Length(2*i-1) / 2
			if below != nil {
				b.StackOn(below)
			}
			below = b
			p.Add(b)
			name := fmt.Sprintf("%s (%s)", proc, srv)
			if proc == "server" {
				name = srv + " process"
			}
			p.Legend.Add(name, b)
		}
	}
	p.NominalX(labels(res.Order)...)
	p.Y.Max *= 1.5 // room for the legend
	return p, nil
}

func labels(eps []string) []string {
	out := make([]string, len(eps))
	for i, ep := range eps {
		out[i] = endpointLabel(ep)
	}
	return out
}

// chart draws the three panels side by side, under a title line, as PNG.
func chart(res *results, sizes []int) ([]byte, error) {
	lat, err := latencyPlot(res, sizes)
	if err != nil {
		return nil, err
	}
	rps, err := rpsPlot(res)
	if err != nil {
		return nil, err
	}
	cpu, err := cpuPlot(res)
	if err != nil {
		return nil, err
	}
	img := vgimg.NewWith(vgimg.UseWH(21*vg.Inch, 7*vg.Inch), vgimg.UseDPI(96))
	dc := draw.New(img)
	title := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 16), XAlign: draw.XCenter, YAlign: draw.YTop,
		Handler: plot.DefaultTextHandler}
	dc.FillText(title, vg.Point{X: dc.Center().X, Y: dc.Max.Y - vg.Points(8)},
		fmt.Sprintf("svc-api benchmark %s: %d CPUs, wrk c=%d, %d rows", res.Started.Format("2006-01-02 15:04 MST"), res.CPUs, res.Conns, res.Rows))
	tiles := draw.Tiles{Rows: 1, Cols: 3, PadTop: vg.Points(36), PadBottom: vg.Points(8), PadLeft: vg.Points(8),
		PadRight: vg.Points(8), PadX: vg.Points(24)}
	for i, c := range plot.Align([][]*plot.Plot{{lat, rps, cpu}}, tiles, dc)[0] {
		[]*plot.Plot{lat, rps, cpu}[i].Draw(c)
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
