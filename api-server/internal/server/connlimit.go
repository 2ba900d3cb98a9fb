package server

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"time"
)

// DefaultMaxConnsPerIP is the default cap on the open connections of one
// client IP: far above what an API client needs (the SDK keeps a handful),
// far below what exhausts a process's file descriptors.
const DefaultMaxConnsPerIP = 64

// LimitListener caps the connections open at once from one client IP
// (the socket's peer) at perIP: a connection over the cap is closed as soon
// as it is accepted, before any byte is read, so one client cannot hold the
// file descriptors the others need (OWASP API4). An IPv6 peer counts by its
// /ipv6Prefix network (DefaultIPv6Prefix if 0), as the per-IP limits count
// it; an IPv4 peer by its address. Peers in trusted (the --trusted-proxies
// addresses and CIDRs) are not capped: behind a proxy every client shares
// its address. perIP <= 0 returns ln unchanged.
// golang.org/x/net/netutil.LimitListener caps the total, not per client,
// and blocks Accept when full, hence this one.
func LimitListener(ln net.Listener, perIP, ipv6Prefix int, trusted []string, log *slog.Logger) (net.Listener, error) {
	if perIP <= 0 {
		return ln, nil
	}
	ipv6Prefix = cmp.Or(ipv6Prefix, DefaultIPv6Prefix)
	if ipv6Prefix < 1 || ipv6Prefix > 128 {
		return nil, fmt.Errorf("IPv6 prefix must be between 1 and 128, got %d", ipv6Prefix)
	}
	l := &limitListener{Listener: ln, perIP: perIP, v6: ipv6Prefix, open: make(map[netip.Prefix]int), log: log}
	for _, t := range trusted {
		p, err := netip.ParsePrefix(t)
		if err != nil {
			a, aerr := netip.ParseAddr(t)
			if aerr != nil {
				return nil, errors.Join(err, aerr)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		l.trusted = append(l.trusted, p)
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	return l, nil
}

type limitListener struct {
	net.Listener
	perIP   int
	v6      int // IPv6 prefix length
	trusted []netip.Prefix
	log     *slog.Logger

	mu      sync.Mutex
	open    map[netip.Prefix]int // by clientNet
	refused int                  // since the last log line
	logged  time.Time            // when the last line was written
}

// Accept returns the next connection within the cap; the others are closed
// here and never reach the server.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
		if err != nil {
			return c, nil // not TCP/IP: nothing to count
		}
		ip := ap.Addr().Unmap()
		if l.isTrusted(ip) {
			return c, nil
		}
		n := clientNet(ip, l.v6)
		if l.take(n) {
			return &limitedConn{Conn: c, release: func() { l.give(n) }}, nil
		}
		c.Close()
	}
}

func (l *limitListener) isTrusted(ip netip.Addr) bool {
	for _, p := range l.trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

func (l *limitListener) take(ip netip.Prefix) bool {
	l.mu.Lock()
	if l.open[ip] < l.perIP {
		l.open[ip]++
		l.mu.Unlock()
		return true
	}
	l.refused++
	now := time.Now()
	if now.Sub(l.logged) < time.Second {
		l.mu.Unlock()
		return false
	}
	n := l.refused
	l.refused, l.logged = 0, now
	l.mu.Unlock()
	l.log.Warn("connections over the per-IP cap closed", "count", n, "max_conns_per_ip", l.perIP,
		"note", "count is the number closed since the previous line (at most one line a second)")
	return false
}

func (l *limitListener) give(ip netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[ip]--; l.open[ip] <= 0 {
		delete(l.open, ip)
	}
}

type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
