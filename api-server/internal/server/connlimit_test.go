package server_test

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/server"
)

// TestLimitListener: connections of one IP over the cap are closed at once;
// a freed place is taken again; trusted peers are not capped (issue #22
// point 3).
func TestLimitListener(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted []string
		want    int // connections served of 4
	}{{"capped", nil, 2}, {"trusted proxy", []string{"127.0.0.0/8"}, 4}} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lim, err := server.LimitListener(ln, 2, 0, tc.trusted, nil)
		if err != nil {
			t.Fatal(err)
		}
		accepted := make(chan net.Conn, 8)
		go func() {
			for {
				c, err := lim.Accept()
				if err != nil {
					return
				}
				accepted <- c
			}
		}()
		var conns []net.Conn
		for range 4 {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		open := 0
		for _, c := range conns {
			c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			var b [1]byte
			var ne net.Error
			if _, err := c.Read(b[:]); errors.As(err, &ne) && ne.Timeout() {
				open++ // still open: served
			}
		}
		if open != tc.want {
			t.Errorf("%s: %d of 4 connections left open, want %d", tc.name, open, tc.want)
		}
		if tc.trusted == nil {
			(<-accepted).Close() // a place frees
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-accepted:
			case <-time.After(2 * time.Second):
				t.Error("a connection after a place freed was not accepted")
			}
			c.Close()
		}
		for _, c := range conns {
			c.Close()
		}
		lim.Close()
	}
}

// TestLimitListenerIPv6 (issue 30, finding 9): IPv6 peers count by their
// /64 (the prefix configurable; 128 counts each address), IPv4 peers by
// their address. The peers' addresses are set on connections accepted from
// loopback (this machine has one IPv6 loopback address).
func TestLimitListenerIPv6(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prefix int
		peers  []string
		want   int // connections served
	}{
		{"one /64", 0, []string{"2001:db8:1:2::a", "2001:db8:1:2::b", "2001:db8:1:2:ffff:ffff:ffff:ffff"}, 2},
		{"two /64s", 0, []string{"2001:db8:1:2::a", "2001:db8:1:2::b", "2001:db8:1:3::a", "2001:db8:1:3::b"}, 4},
		{"a /48", 48, []string{"2001:db8:1:2::a", "2001:db8:1:3::a", "2001:db8:1:4::a"}, 2},
		{"each address", 128, []string{"2001:db8:1:2::a", "2001:db8:1:2::b", "2001:db8:1:2::c"}, 3},
		{"IPv4 by address", 0, []string{"192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.1", "192.0.2.1"}, 4},
		{"IPv4-mapped IPv6 as IPv4", 0, []string{"::ffff:192.0.2.1", "192.0.2.1", "::ffff:192.0.2.1"}, 2},
	} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		peers := make(chan string, len(tc.peers))
		for _, p := range tc.peers {
			peers <- p
		}
		lim, err := server.LimitListener(&peerListener{ln, peers}, 2, tc.prefix, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		accepted := make(chan net.Conn, len(tc.peers))
		go func() {
			for {
				c, err := lim.Accept()
				if err != nil {
					return
				}
				accepted <- c
			}
		}()
		var conns []net.Conn
		for range tc.peers {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		open := 0
		for _, c := range conns {
			c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			var b [1]byte
			var ne net.Error
			if _, err := c.Read(b[:]); errors.As(err, &ne) && ne.Timeout() {
				open++ // still open: served
			}
		}
		if open != tc.want {
			t.Errorf("%s: %d of %d connections left open, want %d", tc.name, open, len(tc.peers), tc.want)
		}
		for _, c := range conns {
			c.Close()
		}
		lim.Close()
	}
	if _, err := server.LimitListener(nil, 2, 129, nil, nil); err == nil {
		t.Error("an IPv6 prefix of 129: no error")
	}
}

// peerListener accepts real connections and gives each the next peer
// address of peers (in the order of the dials, which are sequential).
type peerListener struct {
	net.Listener
	peers chan string
}

func (l *peerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return peerConn{c, &net.TCPAddr{IP: net.ParseIP(<-l.peers), Port: 40000}}, nil
}

type peerConn struct {
	net.Conn
	peer net.Addr
}

func (c peerConn) RemoteAddr() net.Addr { return c.peer }
