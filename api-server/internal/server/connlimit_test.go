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
		lim, err := server.LimitListener(ln, 2, tc.trusted, nil)
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
