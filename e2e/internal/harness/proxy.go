package harness

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// ProxyMode is what a Proxy does with connections.
type ProxyMode int

// Proxy modes.
const (
	Forward ProxyMode = iota // relay bytes both ways
	Cut                      // refuse: close new and existing connections at once
	Stall                    // accept, read, never answer
	Slow                     // relay, but hold each answer back by the delay (SetDelay)
	// Freeze keeps every open connection open but relays nothing more in
	// either direction, and swallows new connections: a server that stopped
	// answering mid-conversation. Set to another mode drops them all.
	Freeze
)

// Proxy is a TCP proxy the test controls, standing between the replicas and a
// service (Redis or PostgreSQL) so that the service can be cut off or made to
// hang without touching the real server.
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	mode   ProxyMode
	delay  time.Duration
	thawed chan struct{} // closed when the mode leaves Freeze
	conns  map[net.Conn]struct{}

	received atomic.Int64 // bytes read from clients
}

// Received returns how many bytes the proxy has read from its clients so
// far: a test waits for it to grow to know that a request reached the
// service's side (a replica's query, for PostgreSQL).
func (p *Proxy) Received() int64 { return p.received.Load() }

// SetDelay sets how long Slow mode holds back each chunk of an answer.
func (p *Proxy) SetDelay(d time.Duration) {
	p.mu.Lock()
	p.delay = d
	p.mu.Unlock()
}

// slowWriter delays every write by the proxy's delay while it is in Slow mode.
type slowWriter struct {
	p *Proxy
	w io.Writer
}

func (s slowWriter) Write(b []byte) (int, error) {
	s.p.mu.Lock()
	mode, d, thawed := s.p.mode, s.p.delay, s.p.thawed
	s.p.mu.Unlock()
	switch mode {
	case Slow:
		time.Sleep(d) // the latency Slow stands for, not a wait for an event
	case Freeze:
		<-thawed
	}
	return s.w.Write(b)
}

// countingReader counts the bytes read through it into n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// NewProxy listens on a free loopback port and relays to target until Close.
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	go p.serve()
	return p, nil
}

// Close stops listening and drops every connection.
func (p *Proxy) Close() {
	p.ln.Close()
	p.closeAll()
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Set changes the mode and drops every open connection, so that pooled
// connections see the change at once (and none stays stalled after a
// restore); Freeze keeps them open, stalled.
func (p *Proxy) Set(m ProxyMode) {
	p.mu.Lock()
	switch {
	case m == Freeze && p.mode != Freeze:
		p.thawed = make(chan struct{})
	case m != Freeze && p.mode == Freeze:
		close(p.thawed)
	}
	p.mode = m
	p.mu.Unlock()
	if m != Freeze {
		p.closeAll()
	}
}

func (p *Proxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode == Cut {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			c.Close()
			continue
		}
		p.mu.Lock()
		mode := p.mode
		p.mu.Unlock()
		if mode == Stall || mode == Freeze {
			go io.Copy(io.Discard, c) //nolint:errcheck // swallow requests, answer nothing
			continue
		}
		go p.relay(c)
	}
}

func (p *Proxy) relay(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	if !p.track(up) {
		c.Close()
		up.Close()
		return
	}
	done := make(chan struct{}, 2)
	go func() { io.Copy(slowWriter{p, up}, countingReader{c, &p.received}); done <- struct{}{} }() //nolint:errcheck
	go func() { io.Copy(slowWriter{p, c}, up); done <- struct{}{} }()                              //nolint:errcheck
	<-done
	c.Close()
	up.Close()
}
