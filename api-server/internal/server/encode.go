package server

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
)

// The list responses are encoded by hand: the bytes encoding/json (gin's
// c.JSON) writes for the same values, without reflection and with one pooled
// buffer per response. Profiles under load showed encoding/json at about a
// quarter of svc-api's CPU time per /insights page. encode_test.go checks
// the output against encoding/json, byte for byte.

// jsonContentType is gin's for c.JSON.
const jsonContentType = "application/json; charset=utf-8"

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// writeJSON sends b, built by append, with c.JSON's status and header.
// Content-Length is set so that net/http writes the body in one piece
// instead of 4 KiB chunks (a write system call each).
func writeJSON(c *gin.Context, b []byte) {
	c.Header("Content-Length", strconv.Itoa(len(b)))
	c.Data(http.StatusOK, jsonContentType, b)
}

// appender builds JSON; ok turns false when a value has no encoding/json
// form that this code reproduces (a non-finite float, a year outside
// 0–9999), and the caller then falls back to encoding/json.
type appender struct {
	b  []byte
	ok bool
}

func (a *appender) raw(s string) { a.b = append(a.b, s...) }

func (a *appender) str(s string) { a.b = appendJSONString(a.b, s) }

func (a *appender) strPtr(s *string) {
	if s == nil {
		a.raw("null")
		return
	}
	a.str(*s)
}

func (a *appender) int(v int64) { a.b = strconv.AppendInt(a.b, v, 10) }

func (a *appender) bool(v bool) { a.b = strconv.AppendBool(a.b, v) }

func (a *appender) intPtr(v *int) {
	if v == nil {
		a.raw("null")
		return
	}
	a.int(int64(*v))
}

// float is encoding/json's float64 encoding.
func (a *appender) float(p *float64) {
	if p == nil {
		a.raw("null")
		return
	}
	f := *p
	if math.IsInf(f, 0) || math.IsNaN(f) {
		a.ok = false
		return
	}
	abs := math.Abs(f)
	fmt := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		fmt = 'e'
	}
	a.b = strconv.AppendFloat(a.b, f, fmt, -1, 64)
	if fmt == 'e' {
		// clean up e-09 to e-9
		n := len(a.b)
		if n >= 4 && a.b[n-4] == 'e' && a.b[n-3] == '-' && a.b[n-2] == '0' {
			a.b[n-2] = a.b[n-1]
			a.b = a.b[:n-1]
		}
	}
}

// time is time.Time's MarshalJSON (RFC 3339 with nanoseconds).
func (a *appender) time(t *time.Time) {
	if t == nil {
		a.raw("null")
		return
	}
	if y := t.Year(); y < 0 || y > 9999 {
		a.ok = false
		return
	}
	if _, off := t.Zone(); off <= -24*3600 || off >= 24*3600 {
		a.ok = false
		return
	}
	a.b = append(a.b, '"')
	a.b = t.AppendFormat(a.b, time.RFC3339Nano)
	a.b = append(a.b, '"')
}

func (a *appender) ref(r accountRef) {
	a.raw(`{"currency":`)
	a.str(r.Currency)
	a.raw(`,"timezone":`)
	a.str(r.Timezone)
	a.raw(`}`)
}

func (a *appender) account(v *account) {
	a.raw(`{"id":`)
	a.str(v.ID)
	a.raw(`,"accountName":`)
	a.str(v.AccountName)
	a.raw(`,"currency":`)
	a.str(v.Currency)
	a.raw(`,"timezone":`)
	a.str(v.Timezone)
	a.raw(`,"isActive":`)
	a.bool(v.IsActive)
	a.raw(`,"lastSyncAt":`)
	a.time(v.LastSyncAt)
	a.raw(`}`)
}

func (a *appender) campaign(v *campaign) {
	a.raw(`{"id":`)
	a.str(v.ID)
	a.raw(`,"platformAdAccountId":`)
	a.str(v.PlatformAdAccountID)
	a.raw(`,"name":`)
	a.str(v.Name)
	a.raw(`,"objective":`)
	a.str(v.Objective)
	a.raw(`,"status":`)
	a.str(v.Status)
	a.raw(`,"effectiveStatus":`)
	a.strPtr(v.EffectiveStatus)
	a.raw(`,"dailyBudget":`)
	a.strPtr(v.DailyBudget)
	a.raw(`,"lifetimeBudget":`)
	a.strPtr(v.LifetimeBudget)
	a.raw(`,"syncedAt":`)
	a.time(v.SyncedAt)
	a.raw(`,"account":`)
	a.ref(v.Account)
	a.raw(`}`)
}

func (a *appender) insight(v *insight) {
	a.raw(`{"id":`)
	a.str(v.ID)
	a.raw(`,"platformAdAccountId":`)
	a.str(v.PlatformAdAccountID)
	a.raw(`,"attributionWindow":`)
	a.str(v.AttributionWindow)
	a.raw(`,"campaignId":`)
	a.strPtr(v.CampaignID)
	a.raw(`,"date":`)
	a.strPtr(v.Date)
	a.raw(`,"syncedAt":`)
	a.time(v.SyncedAt)
	a.raw(`,"account":`)
	a.ref(v.Account)
	a.raw(`,"purchaseMeasurement":`)
	a.str(v.PurchaseMeasurement)
	a.raw(`,"spend":`)
	a.str(v.Spend)
	a.raw(`,"ctr":`)
	a.str(v.CTR)
	a.raw(`,"cpc":`)
	a.str(v.CPC)
	a.raw(`,"cpm":`)
	a.str(v.CPM)
	a.raw(`,"impressions":`)
	a.int(v.Impressions)
	a.raw(`,"reach":`)
	a.int(v.Reach)
	a.raw(`,"clicks":`)
	a.int(v.Clicks)
	a.raw(`,"purchases":`)
	a.float(v.Purchases)
	a.raw(`,"purchaseValue":`)
	a.float(v.PurchaseValue)
	a.raw(`,"roas":`)
	a.float(v.ROAS)
	a.raw(`}`)
}

func (a *appender) meta(m *meta) {
	a.raw(`{"source":`)
	a.str(m.Source)
	a.raw(`,"liveMetaRequest":`)
	a.bool(m.LiveMetaRequest)
	a.raw(`,"limit":`)
	a.int(int64(m.Limit))
	a.raw(`,"offset":`)
	a.int(int64(m.Offset))
	a.raw(`,"nextOffset":`)
	a.intPtr(m.NextOffset)
	a.raw(`,"returned":`)
	a.int(int64(m.Returned))
	a.raw(`,"generatedAt":`)
	a.str(m.GeneratedAt)
	a.raw(`,"dataAsOf":`)
	a.str(m.DataAsOf)
	a.raw(`,"note":`)
	a.str(m.Note)
	a.raw(`}`)
}

// appendEnvelope encodes env as encoding/json does; false if it cannot.
func appendEnvelope[T any](b []byte, env *envelope[T]) ([]byte, bool) {
	a := appender{b: b, ok: true}
	a.raw(`{"data":`)
	if env.Data == nil {
		a.raw("null")
	} else {
		a.raw("[")
		for i := range env.Data {
			if i > 0 {
				a.raw(",")
			}
			switch v := any(&env.Data[i]).(type) {
			case *account:
				a.account(v)
			case *campaign:
				a.campaign(v)
			case *insight:
				a.insight(v)
			default:
				return a.b, false
			}
		}
		a.raw("]")
	}
	a.raw(`,"meta":`)
	a.meta(&env.Meta)
	a.raw("}")
	return a.b, a.ok
}

const hexDigits = "0123456789abcdef"

// htmlSafe reports the ASCII bytes encoding/json writes as they are when it
// escapes HTML: not a control character, '"', '\\', '<', '>' or '&'.
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// appendJSONString is encoding/json's appendString with HTML escaping (what
// json.Marshal does).
func appendJSONString(dst []byte, src string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(src); {
		if b := src[i]; b < utf8.RuneSelf {
			if htmlSafe[b] {
				i++
				continue
			}
			dst = append(dst, src[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(src[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, src[start:]...)
	dst = append(dst, '"')
	return dst
}
