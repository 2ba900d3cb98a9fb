package server

import (
	"net/netip"

	"github.com/gin-gonic/gin"
)

// DefaultIPv6Prefix is Config.IPv6Prefix's default: the per-IP limits and
// the connection cap count an IPv6 client by its /64, the block one
// subscriber or one host commonly holds whole (RFC 6177): counted by full
// address, one /64 would hold 2^64 buckets (issue 30, finding 9).
const DefaultIPv6Prefix = 64

// clientNet is the network the per-IP limits and the connection cap count
// addr in: an IPv4 address alone (IPv4-mapped IPv6 addresses too); an IPv6
// address's /bits network.
func clientNet(addr netip.Addr, bits int) netip.Prefix {
	addr = addr.Unmap().WithZone("")
	if addr.Is4() {
		return netip.PrefixFrom(addr, 32)
	}
	p, err := addr.Prefix(bits)
	if err != nil {
		return netip.PrefixFrom(addr, addr.BitLen())
	}
	return p
}

// ipBucket is the name of the client's per-IP bucket (and of its remembered
// refusal): its IPv4 address, as before, or its IPv6 network, e.g.
// "2001:db8:1:2::/64".
func (s *Server) ipBucket(c *gin.Context) string {
	ip := c.ClientIP()
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	p := clientNet(addr, s.ipv6Prefix)
	if p.Addr().Is4() {
		return p.Addr().String()
	}
	return p.String()
}
